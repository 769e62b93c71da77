// The stale-flag analysis, pure: the same input gives the same report byte for byte, so a plan can
// be reviewed, shared and compared. The service gathers the input (states, journal, telemetry,
// experiments); nothing here reads a clock or a database.
import type { FlagDefinition } from '@ensign/engine';
import { canonicalJson, digestOf } from '../../../platform/canonical-json.js';
import type {
  CleanupPlan,
  CleanupReport,
  CodeReference,
  EvaluationUsage,
  InventoryEntry,
  LastChange,
  PlanStep,
  Readiness,
  ReadinessBlocker,
  ServingShape,
} from './cleanup.model.js';

export type CleanupFlag = Pick<
  FlagDefinition,
  'key' | 'type' | 'value' | 'rollout' | 'variants' | 'rules' | 'overrides' | 'dependencies'
> & {
  enabled?: boolean;
  offValue?: unknown;
  updatedAt: string;
};

export interface CleanupEnvironmentInput {
  env: string;
  flags: Record<string, CleanupFlag>;
  lastChanges: ReadonlyMap<string, LastChange>;
  evaluations: ReadonlyMap<string, EvaluationUsage>;
  /** Running or paused experiments per flag key. */
  experiments: ReadonlyMap<string, string[]>;
  /** Rollout plans that are not finished (draft, active, paused) per flag key. */
  rolloutPlans: ReadonlyMap<string, string[]>;
}

export interface CleanupInput {
  envs: CleanupEnvironmentInput[];
  codeReferences: CodeReference[] | undefined;
  staleAfterDays: number;
  /** The instant staleness is judged at (ms since the epoch). */
  now: number;
}

const NO_EVALUATIONS: EvaluationUsage = { count: 0, lastSeenAt: null };
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sameJson = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** How a flag serves in one environment, and the one value it serves when it serves one. */
export function servingShapeOf(
  flag: CleanupFlag,
  inExperiment: boolean,
): { shape: ServingShape; servedValue: unknown; single: boolean } {
  if (flag.enabled === false) return { shape: 'static', servedValue: flag.offValue ?? flag.value, single: true };
  if (inExperiment) return { shape: 'experiment', servedValue: null, single: false };
  const hasOverrides = Object.keys(flag.overrides ?? {}).length > 0;
  if ((flag.rules ?? []).length > 0 || hasOverrides || (flag.dependencies ?? []).length > 0) {
    return { shape: 'targeted', servedValue: null, single: false };
  }
  if (flag.variants && flag.variants.length > 0) {
    const whole = flag.variants.find((v) => v.weight >= 100);
    return whole
      ? { shape: 'fully_rolled_out', servedValue: whole.value, single: true }
      : { shape: 'split', servedValue: null, single: false };
  }
  if (flag.rollout) {
    if (flag.rollout.percentage >= 100)
      return { shape: 'fully_rolled_out', servedValue: flag.rollout.value, single: true };
    if (flag.rollout.percentage <= 0) return { shape: 'static', servedValue: flag.value, single: true };
    return { shape: 'split', servedValue: null, single: false };
  }
  return { shape: 'static', servedValue: flag.value, single: true };
}

/** A flag that serves one value and has nothing left to strip (no rollout, variants or off switch). */
function isPlain(flag: CleanupFlag): boolean {
  return (
    flag.enabled !== false &&
    !flag.rollout &&
    !(flag.variants && flag.variants.length > 0) &&
    (flag.rules ?? []).length === 0 &&
    Object.keys(flag.overrides ?? {}).length === 0 &&
    (flag.dependencies ?? []).length === 0
  );
}

function inventoryOf(input: CleanupInput): InventoryEntry[] {
  const entries: InventoryEntry[] = [];
  for (const environment of input.envs) {
    const dependents = new Map<string, string[]>();
    for (const flag of Object.values(environment.flags)) {
      for (const dependency of flag.dependencies ?? []) {
        const list = dependents.get(dependency.flag) ?? [];
        list.push(flag.key);
        dependents.set(dependency.flag, list);
      }
    }
    for (const key of Object.keys(environment.flags).sort(byString)) {
      const flag = environment.flags[key]!;
      const experiments = [...(environment.experiments.get(key) ?? [])].sort(byString);
      const serving = servingShapeOf(flag, experiments.length > 0);
      entries.push({
        flagKey: key,
        env: environment.env,
        type: flag.type,
        value: flag.value,
        enabled: flag.enabled !== false,
        servingShape: serving.shape,
        servedValue: serving.single ? serving.servedValue : null,
        servesSingleValue: serving.single,
        lastChange: environment.lastChanges.get(key) ?? { at: flag.updatedAt, changeId: null, operation: null },
        evaluations: environment.evaluations.get(key) ?? NO_EVALUATIONS,
        dependents: [...(dependents.get(key) ?? [])].sort(byString),
        experiments,
        rolloutPlans: [...(environment.rolloutPlans.get(key) ?? [])].sort(byString),
      });
    }
  }
  return entries;
}

function reconcileOf(inventory: InventoryEntry[], references: CodeReference[] | undefined): CleanupReport['reconcile'] {
  const inService = new Map<string, InventoryEntry[]>();
  for (const entry of inventory) inService.set(entry.flagKey, [...(inService.get(entry.flagKey) ?? []), entry]);
  const referenced = new Map<string, CodeReference[]>();
  for (const ref of references ?? []) referenced.set(ref.flagKey, [...(referenced.get(ref.flagKey) ?? []), ref]);

  const missingInService = [...referenced.keys()]
    .filter((k) => !inService.has(k))
    .sort(byString)
    .map((flagKey) => ({ flagKey, references: sortReferences(referenced.get(flagKey)!) }));
  const unreferencedInCode =
    references === undefined ? null : [...inService.keys()].filter((k) => !referenced.has(k)).sort(byString);
  const inconsistentAcrossEnvs = [...inService.entries()]
    .filter(([, entries]) => entries.some((e) => e.type !== entries[0]!.type || !sameJson(e.value, entries[0]!.value)))
    .map(([flagKey, entries]) => ({
      flagKey,
      environments: entries.map((e) => ({ env: e.env, type: e.type, value: e.value })),
    }))
    .sort((a, b) => byString(a.flagKey, b.flagKey));
  return { missingInService, unreferencedInCode, inconsistentAcrossEnvs };
}

function sortReferences(refs: CodeReference[]): CodeReference[] {
  return [...refs].sort((a, b) => byString(a.path ?? '', b.path ?? '') || (a.line ?? 0) - (b.line ?? 0));
}

/**
 * Readiness per flag across the chosen environments. A flag blocked only by dependents that are
 * themselves ready is ready too (the plan deletes the dependents first), so readiness is a fixed
 * point: start from the flags with no blocker of their own and release dependents' prerequisites.
 */
function readinessOf(inventory: InventoryEntry[], input: CleanupInput): Readiness[] {
  const cutoff = input.now - input.staleAfterDays * 86_400_000;
  const byFlag = new Map<string, InventoryEntry[]>();
  for (const entry of inventory) byFlag.set(entry.flagKey, [...(byFlag.get(entry.flagKey) ?? []), entry]);

  const own = new Map<string, ReadinessBlocker[]>();
  for (const [flagKey, entries] of byFlag) {
    const blockers: ReadinessBlocker[] = [];
    for (const e of entries) {
      if (!e.servesSingleValue)
        blockers.push({
          code: 'serves_several_values',
          env: e.env,
          message: `serves more than one value (${e.servingShape}) in ${e.env}`,
        });
      if (e.lastChange && Date.parse(e.lastChange.at) > cutoff) {
        blockers.push({
          code: 'changed_recently',
          env: e.env,
          message: `changed in ${e.env} at ${e.lastChange.at}, within the last ${input.staleAfterDays} days`,
        });
      }
      if (e.evaluations.count > 0) {
        blockers.push({
          code: 'recently_evaluated',
          env: e.env,
          message: `evaluated ${e.evaluations.count} times in ${e.env} within the last ${input.staleAfterDays} days`,
        });
      }
      for (const id of e.experiments)
        blockers.push({ code: 'experiment_in_progress', env: e.env, message: `experiment ${id} uses it in ${e.env}` });
      for (const id of e.rolloutPlans)
        blockers.push({ code: 'rollout_in_progress', env: e.env, message: `rollout plan ${id} uses it in ${e.env}` });
    }
    const single = entries.filter((e) => e.servesSingleValue);
    if (single.length === entries.length && single.some((e) => !sameJson(e.servedValue, single[0]!.servedValue))) {
      blockers.push({
        code: 'values_differ_across_envs',
        message: 'serves different values in different environments',
      });
    }
    own.set(flagKey, blockers);
  }

  const ready = new Set([...own].filter(([, b]) => b.length === 0).map(([k]) => k));
  // Dependents that stay: a prerequisite cannot go while any dependent that is not going names it.
  for (let changed = true; changed;) {
    changed = false;
    for (const key of [...ready]) {
      const staying = (byFlag.get(key) ?? []).flatMap((e) => e.dependents).filter((d) => !ready.has(d));
      if (staying.length > 0) {
        ready.delete(key);
        changed = true;
      }
    }
  }

  return [...byFlag.keys()].sort(byString).map((flagKey) => {
    const entries = byFlag.get(flagKey)!;
    const blockers = [...own.get(flagKey)!];
    if (blockers.length === 0 && !ready.has(flagKey)) {
      const staying = [...new Set(entries.flatMap((e) => e.dependents).filter((d) => !ready.has(d)))].sort(byString);
      blockers.push({
        code: 'has_dependents',
        message: `named as a prerequisite by ${staying.join(', ')}, which stay`,
      });
    }
    const isReady = blockers.length === 0;
    const reasons = isReady
      ? [
          `serves one value in every environment (${entries.map((e) => e.env).join(', ')}) and has not changed for ${input.staleAfterDays} days`,
          `no evaluations seen for ${input.staleAfterDays} days`,
          'no dependent flag stays, and no experiment or rollout plan uses it',
        ]
      : [];
    return { flagKey, ready: isReady, reasons, blockers };
  });
}

function planOf(inventory: InventoryEntry[], readiness: Readiness[], input: CleanupInput): CleanupPlan {
  const ready = new Set(readiness.filter((r) => r.ready).map((r) => r.flagKey));
  const references = new Map<string, CodeReference[]>();
  for (const ref of input.codeReferences ?? [])
    references.set(ref.flagKey, [...(references.get(ref.flagKey) ?? []), ref]);

  const makeStatic: PlanStep[] = [];
  for (const environment of input.envs) {
    for (const key of Object.keys(environment.flags).sort(byString)) {
      const flag = environment.flags[key]!;
      if (!ready.has(key) || isPlain(flag)) continue;
      const entry = inventory.find((e) => e.env === environment.env && e.flagKey === key)!;
      makeStatic.push({ stage: 'make_static', env: environment.env, flagKey: key, value: entry.servedValue });
    }
  }
  const readyKeys = [...ready].sort(byString);
  const removeReferences: PlanStep[] = readyKeys.map((flagKey) => ({
    stage: 'remove_code_references',
    flagKey,
    references: sortReferences(references.get(flagKey) ?? []),
  }));
  const deletes: PlanStep[] = deleteOrder(readyKeys, inventory).map((flagKey) => ({
    stage: 'delete_flag',
    flagKey,
    envs: inventory.filter((e) => e.flagKey === flagKey).map((e) => e.env),
  }));
  const stages = [
    { stage: 'make_static' as const, steps: makeStatic },
    { stage: 'remove_code_references' as const, steps: removeReferences },
    { stage: 'delete_flag' as const, steps: deletes },
  ];
  return { stages, digest: digestOf(stages) };
}

/** Dependents before their prerequisites (a prerequisite must outlive every flag naming it); ties by key. */
function deleteOrder(keys: string[], inventory: InventoryEntry[]): string[] {
  const going = new Set(keys);
  const dependentsOf = new Map<string, Set<string>>();
  for (const e of inventory) {
    if (!going.has(e.flagKey)) continue;
    const set = dependentsOf.get(e.flagKey) ?? new Set<string>();
    for (const d of e.dependents) if (going.has(d)) set.add(d);
    dependentsOf.set(e.flagKey, set);
  }
  const order: string[] = [];
  const done = new Set<string>();
  while (order.length < keys.length) {
    const next = keys.find((k) => !done.has(k) && [...(dependentsOf.get(k) ?? [])].every((d) => done.has(d)));
    // The engine refuses prerequisite cycles, so a next key always exists; stop rather than loop if not.
    if (next === undefined) break;
    done.add(next);
    order.push(next);
  }
  return order;
}

export function analyseCleanup(input: CleanupInput): Omit<CleanupReport, 'asOf' | 'staleAfterDays' | 'envs'> {
  const inventory = inventoryOf(input);
  const readiness = readinessOf(inventory, input);
  return {
    inventory,
    reconcile: reconcileOf(inventory, input.codeReferences),
    readiness,
    plan: planOf(inventory, readiness, input),
  };
}

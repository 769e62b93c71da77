// The rollback plan, pure: from the current state and a retained target state to the state a
// restore within a scope produces, the changes in the config-versions diff format, and a digest of
// the whole plan. No timestamps, no generated ids: the same inputs always give the same bytes, which
// is what lets apply recompute the plan and compare digests.
import { validateDependencyGraph } from '@ensign/engine';
import { canonicalJson, digestOf } from '../../../platform/canonical-json.js';
import { AppError } from '../../../platform/errors.js';
import type { DiffEntry } from '../journal/index.js';
import {
  dependencyChanges,
  diffStates,
  visibilityChanges,
  type ConfigState,
  type DependencyChange,
  type FlagRecord,
  type VisibilityChange,
} from '../config/index.js';

/** What a request may restore; absent: everything. */
export interface RollbackScopeInput {
  flags?: string[];
  advanced?: boolean;
  privacy?: boolean;
}

/** The scope as the plan states it: `flags: null` means every flag. */
export interface RollbackScope {
  flags: string[] | null;
  advanced: boolean;
  privacy: boolean;
}

export interface RollbackPlan {
  appId: string;
  env: string;
  fromVersion: number;
  targetVersion: number;
  resultVersion: number;
  scope: RollbackScope;
  changes: DiffEntry[];
  dependencies: DependencyChange[];
  visibility: VisibilityChange[];
  warnings: string[];
  fromState: string;
  toState: string;
  digest: string;
}

export interface PlanInputs {
  appId: string;
  env: string;
  from: { version: number; state: ConfigState };
  target: { version: number; state: ConfigState };
  scope?: RollbackScopeInput;
}

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A given scope restores what it names and nothing else (flags absent: none; advanced and privacy
 * absent: false); no scope restores everything. Flag keys are sorted and unique so equal scopes give
 * equal plans.
 */
export function normaliseScope(scope: RollbackScopeInput | undefined): RollbackScope {
  if (!scope) return { flags: null, advanced: true, privacy: true };
  return {
    flags: [...new Set(scope.flags ?? [])].sort(),
    advanced: scope.advanced ?? false,
    privacy: scope.privacy ?? false,
  };
}

function sortedFlags(flags: Record<string, FlagRecord>): Record<string, FlagRecord> {
  const out: Record<string, FlagRecord> = {};
  for (const key of Object.keys(flags).sort()) out[key] = flags[key]!;
  return out;
}

/**
 * Sections a rollback never restores: the served experiments belong to the experiments' own records
 * (lifecycle, ramps, iterations); restoring an old copy would revive completed experiments or undo
 * ramps behind those records (docs/decisions/0018). The current section is kept as it is.
 */
const NEVER_RESTORED = new Set(['experiments']);

function keepCurrent(next: Record<string, unknown>, current: Record<string, unknown>) {
  for (const section of NEVER_RESTORED) {
    if (has(current, section)) next[section] = structuredClone(current[section]);
    else delete next[section];
  }
}

/**
 * The state a restore within `scope` produces. A full restore is the retained state itself, byte for
 * byte, except for the sections a rollback never restores.
 */
export function restoredState(current: ConfigState, target: ConfigState, scope: RollbackScope): ConfigState {
  if (scope.flags === null && scope.advanced && scope.privacy) {
    const whole = structuredClone(target) as unknown as Record<string, unknown>;
    if (
      canonicalJson((current as { experiments?: unknown }).experiments ?? null) !==
      canonicalJson((target as { experiments?: unknown }).experiments ?? null)
    ) {
      keepCurrent(whole, current as unknown as Record<string, unknown>);
    }
    return whole as unknown as ConfigState;
  }
  const from = current as unknown as Record<string, unknown>;
  const to = target as unknown as Record<string, unknown>;
  const next: Record<string, unknown> = {};
  const sections = [...new Set([...Object.keys(from), ...Object.keys(to)])];
  for (const section of sections) {
    const restore =
      section === 'flags' || NEVER_RESTORED.has(section)
        ? false
        : section === 'privacy'
          ? scope.privacy
          : scope.advanced;
    const source = restore ? to : from;
    if (has(source, section)) next[section] = structuredClone(source[section]);
  }
  const flags: Record<string, FlagRecord> = { ...current.flags };
  const keys = scope.flags ?? [...new Set([...Object.keys(current.flags), ...Object.keys(target.flags)])];
  for (const key of keys) {
    if (has(target.flags, key)) flags[key] = structuredClone(target.flags[key]!);
    else delete flags[key];
  }
  next.flags = sortedFlags(flags);
  return next as unknown as ConfigState;
}

function warningsOf(inputs: PlanInputs, scope: RollbackScope, changes: DiffEntry[]): string[] {
  const warnings: string[] = [];
  if (inputs.target.version === inputs.from.version)
    warnings.push(`version ${inputs.target.version} is the current version: nothing to restore`);
  for (const key of scope.flags ?? []) {
    if (!has(inputs.from.state.flags, key) && !has(inputs.target.state.flags, key))
      warnings.push(`flag "${key}" exists neither now nor at version ${inputs.target.version}: nothing to restore`);
  }
  if (canonicalJson(inputs.from.state.experiments ?? null) !== canonicalJson(inputs.target.state.experiments ?? null)) {
    warnings.push(
      `experiments are not rolled back: the running and paused experiments stay as they are now, not as at version ${inputs.target.version}; change them through /api/v1/experiments`,
    );
  }
  for (const c of changes) {
    if (c.resourceType === 'flag' && c.path === '' && c.op === 'remove')
      warnings.push(`flag "${c.key}" did not exist at version ${inputs.target.version}: the rollback deletes it`);
    if (c.resourceType === 'flag' && c.path === '' && c.op === 'add')
      warnings.push(`flag "${c.key}" was deleted after version ${inputs.target.version}: the rollback recreates it`);
  }
  return warnings;
}

/** 400 rollback_invalid when the restored flags would not form a valid set (prerequisites, cycles). */
function checkResult(state: ConfigState): void {
  const issues = validateDependencyGraph(Object.values(state.flags));
  if (issues.length === 0) return;
  throw new AppError(400, 'rollback_invalid', `The restored configuration would be invalid: ${issues[0]!.message}`, {
    details: issues.map((i) => ({
      path: `/flags/${(i.flagKey ?? '').replace(/~/g, '~0').replace(/\//g, '~1')}${i.path}`,
      message: i.message,
    })),
    resolution: 'Widen the scope to include the flags named in details (or restore them first), then plan again.',
  });
}

export function planRollback(inputs: PlanInputs): { plan: RollbackPlan; state: ConfigState } {
  const scope = normaliseScope(inputs.scope);
  const state = restoredState(inputs.from.state, inputs.target.state, scope);
  const changes = diffStates(inputs.from.state, state);
  if (changes.length > 0) checkResult(state);
  const body = {
    appId: inputs.appId,
    env: inputs.env,
    fromVersion: inputs.from.version,
    targetVersion: inputs.target.version,
    resultVersion: changes.length > 0 ? inputs.from.version + 1 : inputs.from.version,
    scope,
    changes,
    dependencies: dependencyChanges(inputs.from.state, state),
    visibility: visibilityChanges(inputs.from.state, state),
    warnings: warningsOf(inputs, scope, changes),
    fromState: digestOf(inputs.from.state),
    toState: digestOf(state),
  };
  return { plan: { ...body, digest: digestOf(body) }, state };
}

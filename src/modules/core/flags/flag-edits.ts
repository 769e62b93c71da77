// The pure core of flag mutations: from the current state and a request to the next state, or a
// domain error. No I/O, so the rule set (ops, quota, validation) is cheap to reason about and to
// test; the service runs it inside the locked transaction.
import { parseFlagDefinition, validateDependencyGraph, type ValidationIssue } from '@ensign/engine';
import { canonicalJson } from '../../../platform/canonical-json.js';
import { AppError, conflict, notFound, validationError } from '../../../platform/errors.js';
import { definitionOf, type ConfigEdit, type ConfigState, type FlagRecord } from '../config/index.js';
import type { FlagFields, FlagPatch } from './flags.model.js';

export const hasFlag = (state: ConfigState, key: string) => Object.prototype.hasOwnProperty.call(state.flags, key);

/** JSON-pointer segment for a flag key inside a request path. */
export const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** A 400 from engine issues already pointed at request paths; the one code the contract names
 * for a flag rule (rollout_variants_exclusive) becomes the error code when it is among them. */
export function invalidFlag(issues: ValidationIssue[]): AppError {
  const exclusive = issues.some((i) => i.code === 'rollout_variants_exclusive');
  return new AppError(400, exclusive ? 'rollout_variants_exclusive' : 'validation_error', issues[0]!.message, {
    details: issues.map((i) => ({ path: i.path, message: i.message })),
    resolution: 'Correct the fields listed in details and send the request again.',
  });
}

/**
 * The next record of one flag: its current definition (if any) with the given fields laid over it,
 * validated as a whole by the engine. When the definition does not change, the current record itself
 * is returned, so its updatedAt stays and the mutation is a no-op.
 */
export function nextFlag(
  existing: FlagRecord | undefined,
  key: string,
  fields: FlagFields,
  knownKeys: Iterable<string>,
  now: string,
): { record: FlagRecord; issues?: undefined } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  if (existing && fields.type !== undefined && fields.type !== existing.type && fields.value === undefined) {
    issues.push({
      path: '/value',
      code: 'required',
      message: `value is required when changing the type from ${existing.type} to ${fields.type}: give a value of the new type`,
    });
  }
  // The off value has the flag's type: a type change without a new one starts over from the new
  // value, as a new flag does (docs/decisions/0010-flag-off-switch.md).
  const retyped =
    existing !== undefined &&
    fields.type !== undefined &&
    fields.type !== existing.type &&
    fields.offValue === undefined;
  const merged = {
    ...(existing ? definitionOf(existing) : {}),
    ...fields,
    ...(retyped ? { offValue: fields.value } : {}),
    key,
  };
  const parsed = parseFlagDefinition(merged, knownKeys);
  if (!parsed.ok) issues.push(...parsed.issues);
  if (issues.length > 0 || !parsed.ok) return { issues };
  if (existing && canonicalJson(parsed.flag) === canonicalJson(definitionOf(existing))) return { record: existing };
  return { record: { ...parsed.flag, createdAt: existing?.createdAt ?? now, updatedAt: now } };
}

/** The state with another flag map, keys sorted so snapshots of equal states are equal bytes. */
export function withFlags(state: ConfigState, flags: Record<string, FlagRecord>): ConfigState {
  const sorted: Record<string, FlagRecord> = {};
  for (const key of Object.keys(flags).sort()) sorted[key] = flags[key]!;
  return { ...state, flags: sorted };
}

/** Issues of the prerequisite graph (unknown flags, cycles, types that can never match). */
export const graphIssues = (flags: Record<string, FlagRecord>) => validateDependencyGraph(Object.values(flags));

function toggleFields(existing: FlagRecord, fields: FlagFields): FlagFields {
  const given = Object.keys(fields);
  if (given.length > 0) {
    throw validationError(
      'op toggle flips the value and takes no other flag fields.',
      given.map((f) => ({ path: `/${f}`, message: 'is not allowed with op toggle' })),
    );
  }
  if (existing.type !== 'bool') {
    throw validationError(`op toggle flips a bool flag; "${existing.key}" is a ${existing.type} flag.`, [
      { path: '/op', message: `toggle needs a bool flag; set the value of this ${existing.type} flag with op update` },
    ]);
  }
  return { value: !existing.value };
}

export function patchFlag(
  state: ConfigState,
  patch: FlagPatch,
  context: { now: string; flagLimit: number },
): ConfigEdit<FlagRecord> {
  const { key, op } = patch;
  const existing = hasFlag(state, key) ? state.flags[key] : undefined;
  if (op === 'create' && existing)
    throw conflict('flag_exists', `Flag "${key}" already exists.`, {
      resolution: 'Use op "update" or "upsert" to change it.',
    });
  if ((op === 'update' || op === 'toggle') && !existing) throw notFound(`Flag "${key}"`);
  if (!existing && Object.keys(state.flags).length >= context.flagLimit) {
    throw new AppError(
      429,
      'flag_quota_exceeded',
      `This environment has ${context.flagLimit} flags, the most your plan allows.`,
      {
        resolution: 'Delete flags you no longer need or ask the operator for a larger plan.',
        metadata: { limit: context.flagLimit },
      },
    );
  }
  const fields = op === 'toggle' ? toggleFields(existing!, patch.fields) : patch.fields;
  const next = nextFlag(existing, key, fields, [...Object.keys(state.flags), key], context.now);
  if (next.issues) throw invalidFlag(next.issues);
  const flags = { ...state.flags, [key]: next.record };
  // Issues in another flag's prerequisites are caused by this change: point them at its key.
  const graph = graphIssues(flags).map((i) => (i.flagKey === key ? i : { ...i, path: '/key' }));
  if (graph.length > 0) throw invalidFlag(graph);
  return {
    state: withFlags(state, flags),
    operation: op === 'toggle' ? 'flag.toggle' : existing ? 'flag.update' : 'flag.create',
    resourceType: 'flag',
    resourceId: key,
    result: next.record,
  };
}

export function deleteFlag(state: ConfigState, key: string): ConfigEdit<null> {
  if (!hasFlag(state, key)) throw notFound(`Flag "${key}"`);
  const { [key]: _removed, ...flags } = state.flags;
  // Removing a flag can only break the flags that name it as a prerequisite.
  const dependents = Object.values(flags)
    .filter((f) => (f.dependencies ?? []).some((d) => d.flag === key))
    .map((f) => f.key);
  if (dependents.length > 0) {
    throw validationError(
      `Flag "${key}" is a prerequisite of ${dependents.map((d) => `"${d}"`).join(', ')}; remove those dependencies first.`,
      [{ path: 'querystring.key', message: `is a prerequisite of ${dependents.join(', ')}` }],
    );
  }
  return {
    state: withFlags(state, flags),
    operation: 'flag.delete',
    resourceType: 'flag',
    resourceId: key,
    result: null,
  };
}

// The envelope of a core/v1 document: enough of its shape that compiling it cannot throw a
// TypeError. Shared by compileDocument (which then validates every flag) and compileServedDocument
// (which trusts the server's validation of the flags, decision 0056).
import { FLAG_TYPES } from './model.js';
import { isPlainObject } from './json-value.js';

export const CORE_SCHEMA_VERSION = 'core/v1';

const pointer = (key: string) => `/flags/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

export function envelopeProblem(document: unknown): { path: string; message: string } | null {
  if (!isPlainObject(document)) return { path: '', message: 'the document must be a JSON object' };
  if (document.schemaVersion !== CORE_SCHEMA_VERSION) {
    return {
      path: '/schemaVersion',
      message: `schemaVersion must be ${JSON.stringify(CORE_SCHEMA_VERSION)} (got ${JSON.stringify(document.schemaVersion) ?? 'nothing'})`,
    };
  }
  if (!isPlainObject(document.flags)) return { path: '/flags', message: 'flags must be an object of flags by key' };
  for (const [key, flag] of Object.entries(document.flags)) {
    if (!isPlainObject(flag)) return { path: pointer(key), message: `flag ${JSON.stringify(key)} must be an object` };
  }
  if (document.experiments !== undefined) {
    if (!Array.isArray(document.experiments)) return { path: '/experiments', message: 'experiments must be an array' };
    const index = document.experiments.findIndex((e) => !servedExperimentShape(e));
    if (index >= 0)
      return {
        path: `/experiments/${index}`,
        message: `experiments[${index}] is not a served experiment (id, flagKey, state, salt, allocation, variants, targeting, layer, holdout)`,
      };
  }
  return null;
}

/** Enough of the shape that compiling cannot throw a TypeError; values were validated when written. */
function servedExperimentShape(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const e = value;
  const bucketed = (part: unknown, fields: string[]) =>
    part === null || (isPlainObject(part) && fields.every((f) => part[f] !== undefined));
  return (
    typeof e.id === 'string' &&
    typeof e.flagKey === 'string' &&
    (e.state === 'running' || e.state === 'paused') &&
    typeof e.salt === 'string' &&
    typeof e.allocation === 'number' &&
    typeof e.iterationId === 'string' &&
    Array.isArray(e.variants) &&
    e.variants.every((v) => isPlainObject(v) && typeof v.key === 'string' && typeof v.weight === 'number') &&
    Array.isArray(e.targeting) &&
    e.targeting.every((c) => isPlainObject(c) && typeof c.attribute === 'string' && Array.isArray(c.values)) &&
    bucketed(e.layer, ['salt', 'start', 'end']) &&
    bucketed(e.holdout, ['salt', 'percentage'])
  );
}

/** The shape of each flag as compiling reads it (its type, and the lists and objects it walks):
 * what compileServedDocument checks in place of validation, so a document that is not what the
 * server serves is refused rather than compiled into surprises. */
export function servedFlagsProblem(
  flags: Record<string, Record<string, unknown>>,
): { path: string; message: string } | null {
  const list = (value: unknown, item: (v: Record<string, unknown>) => boolean) =>
    Array.isArray(value) && value.every((v) => isPlainObject(v) && item(v));
  const condition = (c: Record<string, unknown>) =>
    typeof c.attribute === 'string' && typeof c.operator === 'string' && Array.isArray(c.values);
  const rollout = (r: unknown) => isPlainObject(r) && typeof r.percentage === 'number';
  for (const key of Object.keys(flags)) {
    const f = flags[key]!;
    const fine =
      (FLAG_TYPES as readonly unknown[]).includes(f.type) &&
      'value' in f &&
      list(
        f.rules,
        (r) =>
          list(r.conditions, condition) &&
          isPlainObject(r.serve) &&
          (!('rollout' in r.serve) || rollout(r.serve.rollout)),
      ) &&
      isPlainObject(f.overrides) &&
      list(f.dependencies, (d) => typeof d.flag === 'string') &&
      (f.rollout === null || rollout(f.rollout)) &&
      (f.variants === null || list(f.variants, (v) => typeof v.key === 'string' && typeof v.weight === 'number'));
    if (!fine)
      return {
        path: pointer(key),
        message: `flag ${JSON.stringify(key)} is not a served flag (type, value, rules, overrides, dependencies, rollout, variants)`,
      };
  }
  return null;
}

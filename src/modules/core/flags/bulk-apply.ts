// Bulk apply, pure: many existing flags, the TTL and the privacy settings changed together into one
// next state — or one 400 listing every problem of every kind, so nothing is applied half-way.
import type { ValidationIssue } from '@ensign/engine';
import type { ConfigEdit, ConfigState, FlagRecord } from '../config/index.js';
import { graphIssues, hasFlag, invalidFlag, nextFlag, pointer, withFlags } from './flag-edits.js';
import type { BulkChanges, FlagFields } from './flags.model.js';

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
/** Stored sorted and without duplicates, so the same settings are always the same state. */
const normalised = (list: string[]) => [...new Set(list)].sort();

export function bulkApply(state: ConfigState, changes: BulkChanges, now: string): ConfigEdit<{ updated: string[] }> {
  const values = changes.flags ?? {};
  const advanced = changes.advanced?.flags ?? {};
  const keys = [...new Set([...Object.keys(values), ...Object.keys(advanced)])].sort();
  const valuePath = (key: string) => `/flags/${pointer(key)}`;
  const advancedPath = (key: string) => `/advanced/flags/${pointer(key)}`;

  const unknown: ValidationIssue[] = keys
    .filter((key) => !hasFlag(state, key))
    .map((key) => ({
      path: has(values, key) ? valuePath(key) : advancedPath(key),
      message: `names flag "${key}", which does not exist in this environment; bulk apply changes existing flags only (create it with PATCH /api/v1/flags)`,
    }));

  // Every kind of problem is collected before answering, so one 400 lists them all: unknown keys,
  // invalid fields, and prerequisite problems among the changes that are valid on their own.
  const issues: ValidationIssue[] = [...unknown];
  const flags: Record<string, FlagRecord> = { ...state.flags };
  for (const key of keys.filter((k) => hasFlag(state, k))) {
    const fields: FlagFields = { ...advanced[key], ...(has(values, key) ? { value: values[key] } : {}) };
    const next = nextFlag(state.flags[key], key, fields, Object.keys(state.flags), now);
    if (!next.issues) flags[key] = next.record;
    // The value came from `flags`; every other field from `advanced.flags`.
    else
      for (const i of next.issues)
        issues.push({
          ...i,
          path: i.path === '/value' && has(values, key) ? valuePath(key) : `${advancedPath(key)}${i.path}`,
        });
  }
  issues.push(...graphIssues(flags).map((i) => ({ ...i, path: `${advancedPath(i.flagKey ?? '')}${i.path}` })));
  if (issues.length > 0) throw invalidFlag(issues);

  const next = withFlags(state, flags);
  if (changes.advanced?.ttlSeconds !== undefined)
    next.settings = { ...next.settings, ttlSeconds: changes.advanced.ttlSeconds };
  if (changes.privacy) {
    next.privacy = { ...next.privacy };
    if (changes.privacy.privateAttributes)
      next.privacy.privateAttributes = normalised(changes.privacy.privateAttributes);
    if (changes.privacy.clientMetadataKeys)
      next.privacy.clientMetadataKeys = normalised(changes.privacy.clientMetadataKeys);
  }
  return {
    state: next,
    operation: 'bulk.apply',
    resourceType: 'environment',
    resourceId: null,
    result: { updated: keys.filter((key) => flags[key] !== state.flags[key]) },
  };
}

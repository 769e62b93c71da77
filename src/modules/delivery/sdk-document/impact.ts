// Impact of proposed changes, pure: the same changes PATCH /api/v1/flags/bulk would apply (so the
// answer is exactly what applying them would do, and invalid input is refused with the same 400),
// compared with the current state — nothing is written.
import { canonicalJson } from '../../../platform/canonical-json.js';
import { AppError } from '../../../platform/errors.js';
import { bulkApply, type BulkChanges } from '../../core/flags/index.js';
import type { DiffEntry } from '../../core/journal/index.js';
import {
  dependencyChanges,
  diffStates,
  type ConfigState,
  type CurrentConfig,
  type DependencyChange,
} from '../../core/config/index.js';
import { clientProjectionKeys, type ClientVisibility } from './client-projection.js';
import { coreFlags } from './core-document.js';

/** changed: the flag's own definition changes. dependent: it names a changed flag as a prerequisite,
 * directly or through others, so its evaluations may change. client_projection: what pub_ keys
 * receive of it changes (it appears, disappears, or loses or regains rules or metadata). */
export type AffectedReason = 'changed' | 'dependent' | 'client_projection';

export interface VisibilityEntry {
  key: string;
  /** Why the flag is (becomeVisible) or was (becomeHidden) in the client projection. */
  via: ClientVisibility;
}

export interface ImpactReport {
  baseVersion: number;
  affectedFlags: { key: string; reasons: AffectedReason[] }[];
  changes: DiffEntry[];
  dependencyChanges: DependencyChange[];
  visibility: { becomeVisible: VisibilityEntry[]; becomeHidden: VisibilityEntry[]; projectionChanged: string[] };
}

/** Flags that depend on any of `keys`, transitively, in `state`. */
function dependentsOf(state: ConfigState, keys: Set<string>): Set<string> {
  const dependents = new Map<string, string[]>();
  for (const flag of Object.values(state.flags)) {
    for (const d of flag.dependencies ?? []) dependents.set(d.flag, [...(dependents.get(d.flag) ?? []), flag.key]);
  }
  const found = new Set<string>();
  const pending = [...keys];
  while (pending.length > 0) {
    for (const dependent of dependents.get(pending.pop()!) ?? []) {
      if (found.has(dependent) || keys.has(dependent)) continue;
      found.add(dependent);
      pending.push(dependent);
    }
  }
  return found;
}

function visibilityOf(before: ConfigState, after: ConfigState): ImpactReport['visibility'] {
  const was = clientProjectionKeys(before.flags);
  const is = clientProjectionKeys(after.flags);
  const oldFlags = coreFlags(before, 'client');
  const newFlags = coreFlags(after, 'client');
  const becomeVisible = [...is].filter(([key]) => !was.has(key)).map(([key, via]) => ({ key, via }));
  const becomeHidden = [...was].filter(([key]) => !is.has(key)).map(([key, via]) => ({ key, via }));
  const projectionChanged = [...is.keys()].filter(
    (key) => was.has(key) && canonicalJson(oldFlags[key]) !== canonicalJson(newFlags[key]),
  );
  return { becomeVisible, becomeHidden, projectionChanged };
}

/** Bulk's 400 points into the bulk body; here the same fields sit under /changes. */
function underChanges(error: unknown): unknown {
  if (!(error instanceof AppError) || error.statusCode !== 400) return error;
  return new AppError(400, error.code, error.message, {
    resolution: error.resolution,
    details: error.details?.map((d) => ({ ...d, path: `/changes${d.path}` })),
  });
}

export function impactOf(current: CurrentConfig, changes: BulkChanges, now: string): ImpactReport {
  let after: ConfigState;
  try {
    after = bulkApply(current.state, changes, now).state;
  } catch (error) {
    throw underChanges(error);
  }
  const before = current.state;
  const diff = diffStates(before, after);
  const changed = new Set(diff.filter((e) => e.resourceType === 'flag').map((e) => e.key));
  const visibility = visibilityOf(before, after);

  const reasons = new Map<string, AffectedReason[]>();
  const add = (key: string, reason: AffectedReason) => reasons.set(key, [...(reasons.get(key) ?? []), reason]);
  for (const key of changed) add(key, 'changed');
  for (const key of dependentsOf(after, changed)) add(key, 'dependent');
  const projected = new Set([
    ...visibility.becomeVisible.map((v) => v.key),
    ...visibility.becomeHidden.map((v) => v.key),
    ...visibility.projectionChanged,
  ]);
  for (const key of projected) add(key, 'client_projection');

  return {
    baseVersion: current.version,
    affectedFlags: [...reasons.keys()].sort().map((key) => ({ key, reasons: reasons.get(key)! })),
    changes: diff,
    dependencyChanges: dependencyChanges(before, after),
    visibility,
  };
}

// Journal diffs of definitions kept outside the config state (metrics, layers, holdouts,
// experiments): a creation is one `add` of the whole definition, a change one entry per field.
import { canonicalJson } from '../../../platform/canonical-json.js';
import type { DiffEntry } from './journal.model.js';

export function definitionDiff(
  resourceType: string,
  key: string,
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
): DiffEntry[] {
  if (before === undefined) return [{ op: 'add', resourceType, key, path: '', after }];
  const out: DiffEntry[] = [];
  for (const field of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (canonicalJson(before[field]) === canonicalJson(after[field])) continue;
    const inBefore = before[field] !== undefined;
    const inAfter = after[field] !== undefined;
    out.push({
      op: inBefore && inAfter ? 'change' : inBefore ? 'remove' : 'add',
      resourceType,
      key,
      path: `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      ...(inBefore ? { before: before[field] } : {}),
      ...(inAfter ? { after: after[field] } : {}),
    });
  }
  return out;
}

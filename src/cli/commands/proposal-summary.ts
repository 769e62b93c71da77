// How a proposal reads on the terminal: one line per change (`ensign proposals list`) and, after
// `ensign propose …`, its preview as tables (the resource's fields and what is served).
import { printPairs, printTable, show } from '../output.js';

type Row = Record<string, any>;

const short = (digest: unknown) => (typeof digest === 'string' ? `${digest.slice(0, 12)}…` : '-');
const listOf = (value: unknown) =>
  Array.isArray(value) ? value.map((s: Row) => s.percentage ?? s).join('/') : show(value);

/** One line saying what a proposed change does, for `ensign proposals list`. */
export function summarizeChange(change: { kind: string; body: Record<string, unknown> }): string {
  const b = change.body as Row;
  switch (change.kind) {
    case 'flag.patch':
      return `flag ${b.key}: ${b.op ?? 'upsert'} ${Object.keys(b)
        .filter((k) => k !== 'key' && k !== 'op')
        .join(', ')}`.trimEnd();
    case 'flag.delete':
      return `flag ${b.key}: delete`;
    case 'bulk.apply':
      return `bulk: ${[...Object.keys(b.flags ?? {}), ...(b.advanced ? ['advanced'] : []), ...(b.privacy ? ['privacy'] : [])].join(', ')}`;
    case 'rollback.apply':
      return `rollback to version ${b.targetVersion}${b.scope ? ' (scoped)' : ''}`;
    case 'experiment.transition':
      return `experiment ${b.experimentId} r${b.revision} → ${b.to}${b.winner ? ` (winner ${b.winner})` : ''}`;
    case 'experiment.ramp':
      return `experiment ${b.experimentId} r${b.revision}: allocation → ${b.allocation} %`;
    case 'experiment.iterate':
      return `experiment ${b.experimentId} r${b.revision}: new iteration`;
    case 'experiment.patch':
      return `experiment ${b.experimentId} r${b.revision}: ${Object.keys(b)
        .filter((k) => k !== 'experimentId' && k !== 'revision')
        .join(', ')}`;
    case 'layer.patch':
      return `layer ${b.layerId} v${b.version}: ${Object.keys(b)
        .filter((k) => k !== 'layerId' && k !== 'version')
        .join(', ')}`;
    case 'holdout.patch':
      return `holdout ${b.holdoutId} v${b.version}: ${Object.keys(b)
        .filter((k) => k !== 'holdoutId' && k !== 'version')
        .map((k) => (k === 'percentage' ? `percentage → ${b.percentage} %` : k))
        .join(', ')}`;
    case 'rollout.create':
      return `rollout plan ${b.planId ?? '(new)'} of ${b.experimentId}: ${b.variant} in steps ${listOf(b.steps)} %`;
    case 'rollout.transition':
      return `rollout plan ${b.planId} v${b.planVersion} → ${b.to}${b.step !== undefined ? ` step ${b.step}` : ''}`;
    case 'rollout.approve':
      return `rollout plan ${b.planId} v${b.planVersion}: approve recommendation ${short(b.recommendationDigest)}`;
    default:
      return change.kind;
  }
}

/** The fields of a previewed resource that change, as rows. */
function resourceRows(resource: Row | undefined): (string | number)[][] {
  if (!resource) return [];
  const before = (resource.before ?? {}) as Row;
  const after = (resource.after ?? {}) as Row;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => [
      `${resource.type} ${resource.id}`,
      k,
      resource.before === null ? '' : show(before[k]),
      show(after[k]),
    ]);
}

export function printProposal(p: Row): void {
  printPairs([
    ['proposal', p.id],
    ['env', p.env],
    ['change', summarizeChange(p.change)],
    ['base version', p.baseVersion],
    ['result version', p.preview.resultVersion],
    ['approvals needed', p.requiredApprovals],
    ['reason', p.reason],
    ['expires', p.expiresAt],
    ['digest', p.digest],
  ]);
  printTable(
    ['RESOURCE', 'FIELD', 'BEFORE', 'AFTER'],
    resourceRows(p.preview.resource),
    'The resource does not change.',
  );
  printTable(
    ['OP', 'RESOURCE', 'KEY', 'PATH', 'BEFORE', 'AFTER'],
    (p.preview.changes as Row[]).map((c) => [
      c.op,
      c.resourceType,
      c.key,
      c.path,
      'before' in c ? show(c.before) : '',
      'after' in c ? show(c.after) : '',
    ]),
    'What is served does not change.',
  );
}

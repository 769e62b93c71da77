// Kysely queries of metrics; rows become MetricRevision here and never leave.
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { JournalAuthority } from '../../core/journal/index.js';
import type { MetricFields, MetricRevision } from './metrics.model.js';
import type { MetricsTables } from './metrics.table.js';

/** This module's tables only (db/owned-tables.ts). */
const own = ownTables<MetricsTables>();

export interface MetricScope {
  appId: string;
  envId: string;
  env: string;
}

interface RevisionRow {
  id: string;
  app_id: string;
  key: string;
  revision: number;
  definition: string;
  created_at: string;
  created_by: string;
}

function toRevision(row: RevisionRow, env: string): MetricRevision {
  const fields = JSON.parse(row.definition) as MetricFields;
  return {
    id: row.id,
    appId: row.app_id,
    env,
    key: row.key,
    revision: Number(row.revision),
    ...fields,
    createdAt: row.created_at,
    createdBy: JSON.parse(row.created_by) as JournalAuthority,
  };
}

function selectRevisions(db: Executor, scope: MetricScope) {
  return own(db)
    .selectFrom('metrics')
    .innerJoin('metric_revisions', 'metric_revisions.metric_id', 'metrics.id')
    .select([
      'metrics.id',
      'metrics.app_id',
      'metrics.key',
      'metric_revisions.revision',
      'metric_revisions.definition',
      'metric_revisions.created_at',
      'metric_revisions.created_by',
    ])
    .where('metrics.env_id', '=', scope.envId);
}

/** Inserts a new metric at revision 1; false when the key is taken in the environment. */
export async function insertMetric(
  db: Executor,
  scope: MetricScope,
  row: { id: string; key: string; fields: MetricFields; at: string; by: JournalAuthority },
): Promise<boolean> {
  const taken = await own(db)
    .selectFrom('metrics')
    .select('id')
    .where('env_id', '=', scope.envId)
    .where('key', '=', row.key)
    .executeTakeFirst();
  if (taken) return false;
  try {
    await own(db)
      .insertInto('metrics')
      .values({ id: row.id, app_id: scope.appId, env_id: scope.envId, key: row.key, revision: 1, created_at: row.at })
      .execute();
  } catch (err) {
    // A concurrent create of the same key committed between the check and the insert.
    if (isUniqueViolation(err)) return false;
    throw err;
  }
  await insertRevision(db, row.id, 1, row.fields, row.at, row.by);
  return true;
}

async function insertRevision(
  db: Executor,
  id: string,
  revision: number,
  fields: MetricFields,
  at: string,
  by: JournalAuthority,
) {
  await own(db)
    .insertInto('metric_revisions')
    .values({
      metric_id: id,
      revision,
      definition: JSON.stringify(fields),
      created_at: at,
      created_by: JSON.stringify(by),
    })
    .execute();
}

/**
 * Appends revision `expected + 1` if the head is still `expected`. The conditional update takes the
 * row's lock, so of two concurrent appends on one head exactly one wins. Returns false on a stale
 * `expected`.
 */
export async function appendRevision(
  db: Executor,
  id: string,
  expected: number,
  fields: MetricFields,
  at: string,
  by: JournalAuthority,
): Promise<boolean> {
  const updated = await own(db)
    .updateTable('metrics')
    .set({ revision: expected + 1 })
    .where('id', '=', id)
    .where('revision', '=', expected)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  await insertRevision(db, id, expected + 1, fields, at, by);
  return true;
}

export async function listHeads(db: Executor, scope: MetricScope): Promise<MetricRevision[]> {
  const rows = await selectRevisions(db, scope)
    .whereRef('metric_revisions.revision', '=', 'metrics.revision')
    .orderBy('metrics.key')
    .execute();
  return rows.map((r) => toRevision(r, scope.env));
}

/** The head (no revision) or exactly one revision of a metric of the environment. */
export async function findRevision(
  db: Executor,
  scope: MetricScope,
  id: string,
  revision?: number,
): Promise<MetricRevision | undefined> {
  let q = selectRevisions(db, scope).where('metrics.id', '=', id);
  q =
    revision === undefined
      ? q.whereRef('metric_revisions.revision', '=', 'metrics.revision')
      : q.where('metric_revisions.revision', '=', revision);
  const row = await q.executeTakeFirst();
  return row ? toRevision(row, scope.env) : undefined;
}

export async function listRevisions(db: Executor, scope: MetricScope, id: string): Promise<MetricRevision[]> {
  const rows = await selectRevisions(db, scope)
    .where('metrics.id', '=', id)
    .orderBy('metric_revisions.revision')
    .execute();
  return rows.map((r) => toRevision(r, scope.env));
}

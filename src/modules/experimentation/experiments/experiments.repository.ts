// Kysely queries of experiments, their revision history and iterations; rows become domain objects
// here and never leave.
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { JournalAuthority } from '../../core/journal/index.js';
import type { ExperimentDefinition, ExperimentState, Iteration } from './experiments.model.js';
import type { ExperimentIterationsTable, ExperimentsTable, ExperimentsTables } from './experiments.table.js';

/** This module's tables only (db/owned-tables.ts). */
const own = ownTables<ExperimentsTables>();

export interface ExperimentRow {
  id: string;
  appId: string;
  envId: string;
  key: string;
  revision: number;
  state: ExperimentState;
  definition: ExperimentDefinition;
  createdAt: string;
  updatedAt: string;
  createdBy: JournalAuthority;
}

function fromRow(row: ExperimentsTable): ExperimentRow {
  return {
    id: row.id,
    appId: row.app_id,
    envId: row.env_id,
    key: row.key,
    revision: Number(row.revision),
    state: row.state as ExperimentState,
    definition: JSON.parse(row.definition) as ExperimentDefinition,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: JSON.parse(row.created_by) as JournalAuthority,
  };
}

function toIteration(row: ExperimentIterationsTable): Iteration {
  return {
    id: row.id,
    number: Number(row.number),
    revision: Number(row.revision),
    salt: row.salt,
    allocation: Number(row.allocation),
    startedAt: row.started_at,
    state: row.state as Iteration['state'],
  };
}

async function recordRevision(db: Executor, row: ExperimentRow, by: JournalAuthority) {
  await own(db)
    .insertInto('experiment_revisions')
    .values({
      experiment_id: row.id,
      revision: row.revision,
      state: row.state,
      definition: JSON.stringify(row.definition),
      created_at: row.updatedAt,
      created_by: JSON.stringify(by),
    })
    .execute();
}

/** Inserts revision 1; false when the key is taken in the environment. */
export async function insertExperiment(db: Executor, row: ExperimentRow): Promise<boolean> {
  const taken = await own(db)
    .selectFrom('experiments')
    .select('id')
    .where('env_id', '=', row.envId)
    .where('key', '=', row.key)
    .executeTakeFirst();
  if (taken) return false;
  try {
    await own(db)
      .insertInto('experiments')
      .values({
        id: row.id,
        app_id: row.appId,
        env_id: row.envId,
        key: row.key,
        revision: row.revision,
        state: row.state,
        definition: JSON.stringify(row.definition),
        created_at: row.createdAt,
        updated_at: row.updatedAt,
        created_by: JSON.stringify(row.createdBy),
      })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
  await recordRevision(db, row, row.createdBy);
  return true;
}

/**
 * Writes `next` (revision `expected + 1`) if the experiment is still at `expected`; the conditional
 * update holds the row until the transaction ends, so one of two concurrent changes wins.
 */
export async function updateExperiment(
  db: Executor,
  next: ExperimentRow,
  expected: number,
  by: JournalAuthority,
): Promise<boolean> {
  const result = await own(db)
    .updateTable('experiments')
    .set({
      revision: next.revision,
      state: next.state,
      definition: JSON.stringify(next.definition),
      updated_at: next.updatedAt,
    })
    .where('id', '=', next.id)
    .where('revision', '=', expected)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await recordRevision(db, next, by);
  return true;
}

export async function findExperiment(db: Executor, envId: string, id: string): Promise<ExperimentRow | undefined> {
  const row = await own(db)
    .selectFrom('experiments')
    .selectAll()
    .where('env_id', '=', envId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

export async function listExperiments(
  db: Executor,
  envId: string,
  states?: readonly ExperimentState[],
): Promise<ExperimentRow[]> {
  let q = own(db).selectFrom('experiments').selectAll().where('env_id', '=', envId);
  if (states) q = q.where('state', 'in', [...states]);
  return (await q.orderBy('key').execute()).map(fromRow);
}

export async function insertIteration(
  db: Executor,
  experimentId: string,
  iteration: Iteration,
  at: string,
): Promise<void> {
  await own(db)
    .insertInto('experiment_iterations')
    .values({
      id: iteration.id,
      revision: iteration.revision,
      experiment_id: experimentId,
      number: iteration.number,
      salt: iteration.salt,
      allocation: iteration.allocation,
      state: iteration.state,
      started_at: iteration.startedAt,
      created_at: at,
    })
    .execute();
}

export async function findExperimentById(db: Executor, id: string): Promise<ExperimentRow | undefined> {
  const row = await own(db).selectFrom('experiments').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/** Running and paused experiments of every environment, least recently changed first. */
export async function activeExperiments(db: Executor, limit: number): Promise<{ id: string; envId: string }[]> {
  const rows = await own(db)
    .selectFrom('experiments')
    .select(['id', 'env_id'])
    .where('state', 'in', ['running', 'paused'])
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, envId: r.env_id }));
}

export async function findIterationRevision(
  db: Executor,
  experimentId: string,
  iterationId: string,
  revision: number,
): Promise<Iteration | undefined> {
  const row = await own(db)
    .selectFrom('experiment_iterations')
    .selectAll()
    .where('experiment_id', '=', experimentId)
    .where('id', '=', iterationId)
    .where('revision', '=', revision)
    .executeTakeFirst();
  return row ? toIteration(row) : undefined;
}

/** When the iteration after `number` started (the end of that one), if there is one. */
export async function nextIterationStart(
  db: Executor,
  experimentId: string,
  number: number,
): Promise<string | undefined> {
  const row = await own(db)
    .selectFrom('experiment_iterations')
    .select('started_at')
    .where('experiment_id', '=', experimentId)
    .where('number', '>', number)
    .orderBy('number')
    .limit(1)
    .executeTakeFirst();
  return row?.started_at;
}

/** The newest revision of the newest iteration. */
export async function currentIteration(db: Executor, experimentId: string): Promise<Iteration | null> {
  const row = await own(db)
    .selectFrom('experiment_iterations')
    .selectAll()
    .where('experiment_id', '=', experimentId)
    .orderBy('number', 'desc')
    .orderBy('revision', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toIteration(row) : null;
}

export async function setIterationState(
  db: Executor,
  iteration: Pick<Iteration, 'id' | 'revision'>,
  state: Iteration['state'],
): Promise<void> {
  await own(db)
    .updateTable('experiment_iterations')
    .set({ state })
    .where('id', '=', iteration.id)
    .where('revision', '=', iteration.revision)
    .execute();
}

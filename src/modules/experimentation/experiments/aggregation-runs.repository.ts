// Kysely queries of aggregation runs: the runs table only (db/owned-tables.ts). The service keeps
// the rules (when a run starts, what supersedes what); rows stay rows here and in results-building.
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { AggregationRunsTables, ExperimentAggregationRunsTable } from './aggregation-runs.table.js';

const own = ownTables<AggregationRunsTables>();
const runs = (executor: Executor) => own(executor).selectFrom('experiment_aggregation_runs');

export type RunRow = ExperimentAggregationRunsTable;

export async function insertRun(trx: Executor, row: RunRow): Promise<void> {
  await own(trx).insertInto('experiment_aggregation_runs').values(row).execute();
}

export async function findRun(executor: Executor, runId: string): Promise<RunRow | undefined> {
  return runs(executor).selectAll().where('id', '=', runId).executeTakeFirst();
}

export async function findRunOfExperiment(executor: Executor, experimentId: string, runId: string): Promise<RunRow | undefined> {
  return runs(executor).selectAll().where('experiment_id', '=', experimentId).where('id', '=', runId).executeTakeFirst();
}

/** The newest succeeded run of an iteration's revision: the pinned aggregate. */
export async function latestSucceededRun(executor: Executor, experimentId: string, iterationId: string, revision: number): Promise<RunRow | undefined> {
  return runs(executor).selectAll()
    .where('experiment_id', '=', experimentId).where('iteration_id', '=', iterationId).where('iteration_revision', '=', revision).where('state', '=', 'succeeded')
    .orderBy('finished_at', 'desc').limit(1).executeTakeFirst();
}

/** The newest run of an iteration, whatever its state. */
export async function newestRun(executor: Executor, experimentId: string, iterationId: string): Promise<RunRow | undefined> {
  return runs(executor).selectAll().where('experiment_id', '=', experimentId).where('iteration_id', '=', iterationId)
    .orderBy('queued_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function hasAnyRun(executor: Executor, experimentId: string): Promise<boolean> {
  return (await runs(executor).select('id').where('experiment_id', '=', experimentId).limit(1).executeTakeFirst()) !== undefined;
}

export async function runningRunId(executor: Executor, experimentId: string, iterationId: string): Promise<string | undefined> {
  return (await runs(executor).select('id').where('experiment_id', '=', experimentId).where('iteration_id', '=', iterationId).where('state', '=', 'running').executeTakeFirst())?.id;
}

export async function runByIdempotencyKey(executor: Executor, experimentId: string, key: string): Promise<RunRow | undefined> {
  return runs(executor).selectAll().where('experiment_id', '=', experimentId).where('idempotency_key', '=', key).executeTakeFirst();
}

export async function markRunning(executor: Executor, runId: string, startedAt: string): Promise<void> {
  await own(executor).updateTable('experiment_aggregation_runs').set({ state: 'running', started_at: startedAt }).where('id', '=', runId).execute();
}

/**
 * Fails a run that has not finished, in one conditional statement: a buried job's hook runs it in the
 * transaction that buries the job, and a run another attempt finished meanwhile is left as it is.
 */
export async function failUnfinishedRun(trx: Executor, runId: string, fields: Partial<RunRow>, finishedAt: string): Promise<void> {
  await own(trx).updateTable('experiment_aggregation_runs').set({ ...fields, state: 'failed', finished_at: finishedAt })
    .where('id', '=', runId).where('state', 'in', ['queued', 'running']).execute();
}

/** Finishes a run; a success supersedes (and drops the aggregates of) the iteration's older successes. */
export async function finishRun(trx: Executor, runId: string, state: 'succeeded' | 'failed', fields: Partial<RunRow>, finishedAt: string): Promise<void> {
  const run = await runs(trx).selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
  await own(trx).updateTable('experiment_aggregation_runs').set({ ...fields, state, finished_at: finishedAt }).where('id', '=', runId).execute();
  if (state !== 'succeeded') return;
  // Older aggregates of the iteration are superseded and dropped: none may outlive an erasure.
  await own(trx).updateTable('experiment_aggregation_runs').set({ state: 'superseded', aggregate: null })
    .where('experiment_id', '=', run.experiment_id).where('iteration_id', '=', run.iteration_id)
    .where('state', '=', 'succeeded').where('id', '!=', runId).execute();
}

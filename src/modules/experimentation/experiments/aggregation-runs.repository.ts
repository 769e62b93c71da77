// Kysely queries of aggregation runs: the runs table only (db/owned-tables.ts). Rows become runs
// (aggregation-runs.model.ts) here and never leave; the service keeps the rules (when a run starts,
// what a result says), this file what supersedes what in storage.
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { AggregationRunsTables, ExperimentAggregationRunsTable } from './aggregation-runs.table.js';
import type { PinnedAggregate, StoredRun } from './aggregation-runs.model.js';
import type { AggregateWatermark, AggregationRunCause, AggregationRunState } from './results.model.js';

const own = ownTables<AggregationRunsTables>();
const runs = (executor: Executor) => own(executor).selectFrom('experiment_aggregation_runs');

type RunRow = ExperimentAggregationRunsTable;

function runOf(row: RunRow): StoredRun {
  return {
    id: row.id,
    envId: row.env_id,
    experimentId: row.experiment_id,
    iterationId: row.iteration_id,
    iterationRevision: Number(row.iteration_revision),
    state: row.state as AggregationRunState,
    cause: row.cause as AggregationRunCause,
    watermark:
      row.watermark_received_at === null
        ? null
        : { receivedAt: Number(row.watermark_received_at), eventId: row.watermark_event_id ?? '' },
    queuedAt: row.queued_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    diagnostics: JSON.parse(row.diagnostics) as string[],
    remediation: row.remediation,
    aggregate: row.aggregate === null ? null : (JSON.parse(row.aggregate) as PinnedAggregate),
    requestHash: row.request_hash,
  };
}

const runOrUndefined = (row: RunRow | undefined) => (row ? runOf(row) : undefined);

export interface NewRun {
  id: string;
  envId: string;
  experimentId: string;
  iterationId: string;
  iterationRevision: number;
  cause: AggregationRunCause;
  queuedAt: string;
  idempotencyKey?: string;
  requestHash?: string;
}

/** Inserts a queued run and answers it as stored. */
export async function insertRun(trx: Executor, input: NewRun): Promise<StoredRun> {
  const row: RunRow = {
    id: input.id,
    env_id: input.envId,
    experiment_id: input.experimentId,
    iteration_id: input.iterationId,
    iteration_revision: input.iterationRevision,
    state: 'queued',
    cause: input.cause,
    watermark_received_at: null,
    watermark_event_id: null,
    queued_at: input.queuedAt,
    started_at: null,
    finished_at: null,
    diagnostics: '[]',
    remediation: null,
    aggregate: null,
    idempotency_key: input.idempotencyKey ?? null,
    request_hash: input.requestHash ?? null,
  };
  await own(trx).insertInto('experiment_aggregation_runs').values(row).execute();
  return runOf(row);
}

export async function findRun(executor: Executor, runId: string): Promise<StoredRun | undefined> {
  return runOrUndefined(await runs(executor).selectAll().where('id', '=', runId).executeTakeFirst());
}

export async function findRunOfExperiment(
  executor: Executor,
  experimentId: string,
  runId: string,
): Promise<StoredRun | undefined> {
  return runOrUndefined(
    await runs(executor)
      .selectAll()
      .where('experiment_id', '=', experimentId)
      .where('id', '=', runId)
      .executeTakeFirst(),
  );
}

/** The newest succeeded run of an iteration's revision: the pinned aggregate. */
export async function latestSucceededRun(
  executor: Executor,
  experimentId: string,
  iterationId: string,
  revision: number,
): Promise<(StoredRun & { aggregate: PinnedAggregate; finishedAt: string }) | undefined> {
  const row = await runs(executor)
    .selectAll()
    .where('experiment_id', '=', experimentId)
    .where('iteration_id', '=', iterationId)
    .where('iteration_revision', '=', revision)
    .where('state', '=', 'succeeded')
    .orderBy('finished_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  const run = runOf(row);
  // finishRun writes both with the succeeded state, and only supersession drops the aggregate.
  if (run.aggregate === null || run.finishedAt === null)
    throw new Error(`succeeded run ${run.id} has no pinned aggregate`);
  return { ...run, aggregate: run.aggregate, finishedAt: run.finishedAt };
}

/** The newest run of an iteration, whatever its state. */
export async function newestRun(
  executor: Executor,
  experimentId: string,
  iterationId: string,
): Promise<StoredRun | undefined> {
  return runOrUndefined(
    await runs(executor)
      .selectAll()
      .where('experiment_id', '=', experimentId)
      .where('iteration_id', '=', iterationId)
      .orderBy('queued_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst(),
  );
}

export async function hasAnyRun(executor: Executor, experimentId: string): Promise<boolean> {
  return (
    (await runs(executor).select('id').where('experiment_id', '=', experimentId).limit(1).executeTakeFirst()) !==
    undefined
  );
}

export async function runningRunId(
  executor: Executor,
  experimentId: string,
  iterationId: string,
): Promise<string | undefined> {
  return (
    await runs(executor)
      .select('id')
      .where('experiment_id', '=', experimentId)
      .where('iteration_id', '=', iterationId)
      .where('state', '=', 'running')
      .executeTakeFirst()
  )?.id;
}

export async function runByIdempotencyKey(
  executor: Executor,
  experimentId: string,
  key: string,
): Promise<StoredRun | undefined> {
  return runOrUndefined(
    await runs(executor)
      .selectAll()
      .where('experiment_id', '=', experimentId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst(),
  );
}

export async function markRunning(executor: Executor, runId: string, startedAt: string): Promise<void> {
  await own(executor)
    .updateTable('experiment_aggregation_runs')
    .set({ state: 'running', started_at: startedAt })
    .where('id', '=', runId)
    .execute();
}

/** What a finished run records besides its state. */
export interface RunOutcome {
  diagnostics: string[];
  remediation: string | null;
  /** A success pins its aggregate and the watermark it read up to. */
  pinned?: { aggregate: PinnedAggregate; watermark: AggregateWatermark };
}

function outcomeFields(outcome: RunOutcome): Partial<RunRow> {
  return {
    diagnostics: JSON.stringify(outcome.diagnostics),
    remediation: outcome.remediation,
    ...(outcome.pinned
      ? {
          aggregate: JSON.stringify(outcome.pinned.aggregate),
          watermark_received_at: outcome.pinned.watermark.receivedAt,
          watermark_event_id: outcome.pinned.watermark.eventId,
        }
      : {}),
  };
}

/**
 * Fails a run that has not finished, in one conditional statement: a buried job's hook runs it in the
 * transaction that buries the job, and a run another attempt finished meanwhile is left as it is.
 */
export async function failUnfinishedRun(
  trx: Executor,
  runId: string,
  outcome: RunOutcome,
  finishedAt: string,
): Promise<void> {
  await own(trx)
    .updateTable('experiment_aggregation_runs')
    .set({ ...outcomeFields(outcome), state: 'failed', finished_at: finishedAt })
    .where('id', '=', runId)
    .where('state', 'in', ['queued', 'running'])
    .execute();
}

/** Finishes a run; a success supersedes (and drops the aggregates of) the iteration's older successes. */
export async function finishRun(
  trx: Executor,
  runId: string,
  state: 'succeeded' | 'failed',
  outcome: RunOutcome,
  finishedAt: string,
): Promise<void> {
  const run = await runs(trx)
    .select(['experiment_id', 'iteration_id'])
    .where('id', '=', runId)
    .executeTakeFirstOrThrow();
  await own(trx)
    .updateTable('experiment_aggregation_runs')
    .set({ ...outcomeFields(outcome), state, finished_at: finishedAt })
    .where('id', '=', runId)
    .execute();
  if (state !== 'succeeded') return;
  // Older aggregates of the iteration are superseded and dropped: none may outlive an erasure.
  await own(trx)
    .updateTable('experiment_aggregation_runs')
    .set({ state: 'superseded', aggregate: null })
    .where('experiment_id', '=', run.experiment_id)
    .where('iteration_id', '=', run.iteration_id)
    .where('state', '=', 'succeeded')
    .where('id', '!=', runId)
    .execute();
}

// The scheduling of aggregation runs on the leased jobs (src/jobs): a run is one job, queued in the
// transaction that records it, and a recurring tick asks the service which iterations are due.
import { enqueue, type JobRunner } from '../../../jobs/index.js';
import type { Executor } from '../../../db/transaction.js';
import { AGGREGATION_INTERVAL_MS } from './aggregation-runs.model.js';

export const AGGREGATION_JOB = 'experiment-aggregation';
export const AGGREGATION_SCHEDULE_JOB = 'experiment-aggregation-schedule';

/** Queues the job of a run; in the transaction that inserted the run, so both commit or neither. */
export async function enqueueRun(trx: Executor, runId: string, now: () => number): Promise<void> {
  await enqueue(trx, { kind: AGGREGATION_JOB, payload: { runId }, maxAttempts: 5 }, now);
}

/** What the jobs call on the service. */
export interface AggregationJobTarget {
  execute(runId: string): Promise<void>;
  fail(runId: string, message: string, trx?: Executor): Promise<void>;
  schedule(): Promise<number>;
}

export function registerAggregationJobs(jobs: JobRunner, aggregation: AggregationJobTarget): void {
  // A job that goes dead (its last attempt threw, or its process was killed on every attempt) fails
  // its run in the same transaction: the run never stays running, so recompute and scheduling go on.
  jobs.register<{ runId: string }>(AGGREGATION_JOB, async (job) => aggregation.execute(job.payload.runId), {
    onDead: (trx, job) => aggregation.fail(job.payload.runId, job.error, trx),
  });
  jobs.every(AGGREGATION_SCHEDULE_JOB, AGGREGATION_INTERVAL_MS, async () => {
    await aggregation.schedule();
  });
}

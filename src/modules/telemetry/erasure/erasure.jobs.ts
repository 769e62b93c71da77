// The erasure job on the leased jobs (src/jobs): queued in the transaction that records the request,
// so a committed request always has its job.
import type { Executor } from '../../../db/transaction.js';
import { enqueue, type JobRunner } from '../../../jobs/index.js';

export const ERASE_JOB = 'telemetry.erase';

export async function enqueueErasure(trx: Executor, erasureId: string, now: () => number): Promise<void> {
  await enqueue(trx, { kind: ERASE_JOB, payload: { erasureId }, maxAttempts: 10 }, now);
}

export function registerErasureJobs(jobs: JobRunner, erasure: { run(erasureId: string): Promise<void> }): void {
  jobs.register<{ erasureId: string }>(ERASE_JOB, async (job) => erasure.run(job.payload.erasureId));
}

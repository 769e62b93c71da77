// The jobs table's own upkeep, as a recurring job: finished jobs are kept a week for inspection
// (why did that export die?) and then deleted, so the table holds only recent history.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { JobRunner } from './job-runner.js';
import { purgeFinishedJobs } from './jobs.repository.js';

export const PURGE_FINISHED_JOBS = 'jobs.purge-finished';
export const FINISHED_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const HOURLY = 60 * 60 * 1000;

export function registerJobsMaintenance(runner: JobRunner, db: Kysely<Database>, now: () => number = Date.now): void {
  runner.every(PURGE_FINISHED_JOBS, HOURLY, async () => {
    await purgeFinishedJobs(db, new Date(now() - FINISHED_JOB_RETENTION_MS).toISOString());
  });
}

// Leased background jobs: enqueue inside a transaction, run by any process's JobRunner.
export { enqueue, DEFAULT_MAX_ATTEMPTS, type EnqueueRequest, type EnqueueResult } from './enqueue.js';
export { JobRunner, PermanentJobError, recurringKeyOf, DEFAULT_LEASE_MS, DEFAULT_STOP_TIMEOUT_MS, type DeadJob, type JobContext, type JobHandler, type JobKindOptions, type JobLogger, type JobRunnerOptions } from './job-runner.js';
export { retryDelayMs, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.js';
export { findJob, purgeFinishedJobs, type Job } from './jobs.repository.js';
export { ProcessTasks } from './process-tasks.js';
export { registerJobsMaintenance, FINISHED_JOB_RETENTION_MS, PURGE_FINISHED_JOBS } from './maintenance.js';
export type { JobState, JobsTable, JobsTables } from './jobs.table.js';

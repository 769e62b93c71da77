// Leased background jobs: enqueue inside a transaction, run by any process's JobRunner.
export { enqueue, recurringKeyOf, runRecurringNow, DEFAULT_MAX_ATTEMPTS } from './enqueue.js';
export { JobRunner, PermanentJobError, type JobRunnerOptions } from './job-runner.js';
export { retryDelayMs, DEFAULT_BACKOFF } from './backoff.js';
export { findJob } from './jobs.repository.js';
export { registerJobsMaintenance } from './maintenance.js';
export { ProcessTasks } from './process-tasks.js';

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'dead';

export interface JobsTable {
  id: string;
  kind: string;
  /** JSON text. */
  payload: string;
  /** queued: waits for run_at; running: leased; failed: the last attempt failed, retried at run_at; succeeded and dead are final. */
  state: JobState;
  run_at: string;
  /** Attempts started so far (raised when a runner leases the job). */
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  /** Unique among queued jobs: "at most one queued job of kind X for Y". */
  dedupe_key: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface JobsTables {
  jobs: JobsTable;
}

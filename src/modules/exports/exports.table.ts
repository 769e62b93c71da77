export interface ExportDestinationsTable {
  id: string;
  app_id: string;
  env_id: string;
  name: string;
  url: string;
  /** JSON array of event kinds; empty means every kind. */
  kinds: string;
  /** JSON { flagKeys?, experimentIds? }. */
  filters: string;
  batch_size: number;
  status: string;
  /** The compare-and-swap field of updates and rotations. */
  version: number;
  secret_version: number;
  /** The current `whsec_` secret sealed with the server secret box; never returned. */
  secret_sealed: string;
  /** The secret before the last rotation, still signed with until previous_secret_expires_at. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  last_attempt_at: string | null;
  last_success_at: string | null;
  consecutive_failures: number;
  /** JSON { status, code, message } of the last failed attempt. */
  last_error: string | null;
  /** When the current run of failures began (a destination failing 24 h in a row is disabled). */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExportsTables {
  export_destinations: ExportDestinationsTable;
}

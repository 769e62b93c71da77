export interface ExportDestinationsTable {
  id: string;
  app_id: string;
  env_id: string;
  /** The environment's slug, carried in every delivery body. */
  env: string;
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
  /**
   * The scheduler's read position in the environment's raw events: (feed_seq, event id), commit
   * order (decision 0036). position_received_at is the arrival time of the event at the position,
   * kept for operators; it orders nothing.
   */
  position_seq: number;
  position_received_at: number;
  position_event_id: string;
  created_at: string;
  updated_at: string;
}

export interface ExportDeliveriesTable {
  id: string;
  destination_id: string;
  env_id: string;
  status: string;
  attempts: number;
  /** JSON array of raw event ids. */
  event_ids: string;
  event_count: number;
  first_event_at: string;
  last_event_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  /** JSON { status, code, message }. */
  last_error: string | null;
  /** Who is sending it now (`<job id>#<attempt>`), while status is delivering (decision 0037). */
  claim_owner: string | null;
  /** When that claim lapses: past it, another attempt may claim the delivery. */
  claimed_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExportsTables {
  export_destinations: ExportDestinationsTable;
  export_deliveries: ExportDeliveriesTable;
}

export interface ExportBackfillsTable {
  /** bkf_… */
  id: string;
  destination_id: string;
  env_id: string;
  /** The window of event timestamps, Unix ms, [from, to). */
  from_ts: number;
  to_ts: number;
  /** queued | running | completed | failed */
  status: string;
  /** Deliveries cut so far. */
  deliveries: number;
  /** Events of the window sent so far. */
  events: number;
  /** The arrival-order position the next page reads after (committed with the deliveries it cut). */
  cursor_received_at: number;
  cursor_event_id: string;
  created_at: string;
  completed_at: string | null;
  last_error: string | null;
}

export interface ExportBackfillsTables {
  export_backfills: ExportBackfillsTable;
}

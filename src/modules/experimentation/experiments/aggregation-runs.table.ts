export interface ExperimentAggregationRunsTable {
  id: string;
  env_id: string;
  experiment_id: string;
  iteration_id: string;
  iteration_revision: number;
  /** queued | running | succeeded | failed | superseded */
  state: string;
  /** schedule | recompute | iteration_change */
  cause: string;
  watermark_received_at: number | null;
  watermark_event_id: string | null;
  queued_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** JSON array of strings. */
  diagnostics: string;
  remediation: string | null;
  /** JSON of the pinned aggregate (per-variant sufficient statistics); null until succeeded and once superseded. */
  aggregate: string | null;
  idempotency_key: string | null;
  /** SHA-256 of the recompute request, to tell a replay from a conflicting reuse of its key. */
  request_hash: string | null;
}

export interface AggregationRunsTables {
  experiment_aggregation_runs: ExperimentAggregationRunsTable;
}

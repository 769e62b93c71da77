export interface MetricsTable {
  id: string;
  app_id: string;
  env_id: string;
  key: string;
  /** The head revision: the compare-and-swap field of appends. */
  revision: number;
  created_at: string;
}

export interface MetricRevisionsTable {
  metric_id: string;
  revision: number;
  /** JSON of the revision's fields (name, kind, eventMetricKey, …); never updated. */
  definition: string;
  created_at: string;
  /** JSON of the journal authority that appended the revision. */
  created_by: string;
}

export interface MetricsTables {
  metrics: MetricsTable;
  metric_revisions: MetricRevisionsTable;
}

// Telemetry tables. Absent optional event fields are '' in the rollup key columns (NULL would make
// every row of a unique key distinct) and NULL in raw events.

export interface TelemetryEventsTable {
  env_id: string;
  id: string;
  app_id: string;
  kind: string;
  /** Event time, Unix ms (the day partition key on PostgreSQL). */
  ts: number;
  received_at: number;
  /**
   * The sequence of the transaction that stored the event (decision 0036): the transaction id on
   * PostgreSQL, a counter on SQLite. The export feed reads in this order, which is commit order.
   */
  feed_seq: number;
  targeting_key: string | null;
  flag_key: string | null;
  variant: string | null;
  /** JSON text. */
  value: string | null;
  reason: string | null;
  experiment_id: string | null;
  iteration_id: string | null;
  iteration_revision: number | null;
  metric_key: string | null;
  metric_value: number | null;
  /** JSON text. */
  attributes: string | null;
  /** Digest of the event's content (duplicate or conflict). On SQLite the table's primary key
   * (env_id, id) is the dedup key; on PostgreSQL telemetry_event_keys is (null in rows stored before
   * migration 0150). */
  content_hash: string | null;
}

/** PostgreSQL only: one row per stored event id, the dedup key (raw events are partitioned by day
 * there, where a unique key must include the partition column). SQLite dedupes on the event table's
 * primary key (migration 0150). */
export interface TelemetryEventKeysTable {
  env_id: string;
  id: string;
  content_hash: string;
  ts: number;
}

export interface TelemetryRollupsTable {
  env_id: string;
  /** Start of the UTC hour, Unix ms. */
  bucket_start: number;
  kind: string;
  flag_key: string;
  variant: string;
  reason: string;
  experiment_id: string;
  iteration_id: string;
  metric_key: string;
  /** The writer slot whose batches merged into this row (migration 0151, decision 0048): a bucket is
   * the sum of its slots' rows. */
  slot: number;
  events: number;
  metric_count: number;
  metric_sum: number;
  metric_sum_sq: number;
  /** Encoded SubjectSketch (subject-sketch.ts). */
  subjects: Buffer;
  updated_at: number;
}

/** One row per (environment, writer slot); the environment's watermark is the newest of them. */
export interface TelemetryWatermarksTable {
  env_id: string;
  slot: number;
  received_at: number;
  event_id: string;
}

/** Digests of legacy (unprefixed) event cursors already redeemed: each is accepted once. */
export interface InsightLegacyCursorsTable {
  digest: string;
  used_at: number;
}

export interface TelemetryTables {
  telemetry_events: TelemetryEventsTable;
  telemetry_event_keys: TelemetryEventKeysTable;
  telemetry_rollups: TelemetryRollupsTable;
  telemetry_watermarks: TelemetryWatermarksTable;
  insight_legacy_cursors: InsightLegacyCursorsTable;
}

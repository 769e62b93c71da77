// Canonical version-1 feature events and what ingestion answers for each of them.

export const EVENT_KINDS = ['decision', 'assignment', 'exposure', 'outcome'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface TelemetryEvent {
  id: string;
  kind: EventKind;
  /** Event time, Unix ms. */
  ts: number;
  targetingKey?: string;
  flagKey?: string;
  variant?: string;
  value?: unknown;
  reason?: string;
  experimentId?: string;
  iterationId?: string;
  iterationRevision?: number;
  metricKey?: string;
  metricValue?: number;
  attributes?: Record<string, unknown>;
}

/** An event that passed validation, with the digest of its content (duplicate vs conflict). */
export interface ValidEvent {
  index: number;
  event: TelemetryEvent;
  contentHash: string;
}

export type ItemStatus = 'accepted' | 'duplicate' | 'permanent-error' | 'retryable-error';

export interface ItemResult {
  index: number;
  id: string | null;
  status: ItemStatus;
  code?: string;
  message?: string;
  retryAfterSeconds?: number;
}

export interface BatchResult {
  results: ItemResult[];
  accepted: number;
  duplicates: number;
  rejected: number;
  /** Set when the rate limit held some items back (the route answers 429). */
  retryAfterSeconds?: number;
}

/** The newest event included in an environment's rollups. */
export interface Watermark {
  receivedAt: number;
  eventId: string;
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** Raw events are kept 30 days (the export backfill window), rollups 90. */
export const RAW_RETENTION_MS = 30 * DAY_MS;
export const ROLLUP_RETENTION_MS = 90 * DAY_MS;
/**
 * The largest magnitude of a `metricValue`: 10^15. Every integer up to it is exact in a 64-bit float,
 * and sums and sums of squares of up to 2^53 such values (rollups, insights measures, an experiment
 * arm's sufficient statistics, per-subject totals squared) stay below 10^78, far from the float's
 * 1.8 × 10^308: no sum of accepted values can overflow to Infinity or turn NaN.
 */
export const MAX_METRIC_MAGNITUDE = 1e15;
/** Clock skew tolerated on event timestamps. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** The rollup key's dimensions and their columns (shared by rollups, raw-event filters and insights). */
export const DIMENSION_COLUMNS = {
  kind: 'kind',
  flagKey: 'flag_key',
  variant: 'variant',
  reason: 'reason',
  experimentId: 'experiment_id',
  iterationId: 'iteration_id',
  metricKey: 'metric_key',
} as const;
export type Dimension = keyof typeof DIMENSION_COLUMNS;
export const DIMENSIONS = Object.keys(DIMENSION_COLUMNS) as Dimension[];

/** Equality filters: each dimension to one value or any of several. */
export type DimensionFilters = Partial<Record<Dimension, string[]>>;

/** One hourly rollup bucket as stored: absent dimensions are null. */
/** A rollup row as a query scan reads it: the dimensions it asked for, in its order. */
export interface RollupRow {
  bucketStart: number;
  dimensions: (string | null)[];
  /** The event kind when the scan asked for it. */
  kind: string | null;
  events: number;
  metricCount: number;
  metricSum: number;
  subjects: Uint8Array;
}

/** A raw event as queries may see it: never the targeting key, the value or the attributes. */
export interface RedactedEvent {
  id: string;
  kind: EventKind;
  ts: number;
  receivedAt: number;
  flagKey: string | null;
  variant: string | null;
  reason: string | null;
  experimentId: string | null;
  iterationId: string | null;
  iterationRevision: number | null;
  metricKey: string | null;
  metricValue: number | null;
}

// Reads for insights and aggregation: the watermark, rollup scans, redacted raw events, the time of
// one event and the legacy cursors redeemed.
import { selectArrayRows } from '../../../db/array-rows.js';
import type { Executor } from '../../../db/transaction.js';
import { keysApart } from './event-store.repository.js';
import type { TelemetryRollupsTable, TelemetryTables } from './telemetry.table.js';
import {
  DIMENSION_COLUMNS,
  DIMENSIONS,
  type Dimension,
  type DimensionFilters,
  type RedactedEvent,
  type RollupRow,
  type Watermark,
} from './telemetry.model.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<TelemetryTables>();

export async function watermarkOf(db: Executor, envId: string): Promise<Watermark | null> {
  // The newest of the environment's slots (decision 0048).
  const row = await own(db)
    .selectFrom('telemetry_watermarks')
    .select(['received_at', 'event_id'])
    .where('env_id', '=', envId)
    .orderBy('received_at', 'desc')
    .orderBy('event_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { receivedAt: row.received_at, eventId: row.event_id } : null;
}

export interface RollupScan {
  envId: string;
  /** Hour-aligned, [from, to). */
  from: number;
  to: number;
  filters: DimensionFilters;
}

function rollupQuery(db: Executor, scan: RollupScan) {
  let q = own(db)
    .selectFrom('telemetry_rollups')
    .where('env_id', '=', scan.envId)
    .where('bucket_start', '>=', scan.from)
    .where('bucket_start', '<', scan.to);
  for (const dim of DIMENSIONS) {
    const values = scan.filters[dim];
    // Absent dimensions are stored as '' in rollups; a filter value is never empty (schema).
    if (values && values.length > 0) q = q.where(DIMENSION_COLUMNS[dim], 'in', values);
  }
  return q;
}

export async function countRollups(db: Executor, scan: RollupScan): Promise<number> {
  const row = await rollupQuery(db, scan)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** What a scan reads beyond the bucket, the event count and the sketch (every query needs those). */
export interface RollupColumns {
  /** Dimensions the query groups by, in its order. */
  dimensions: readonly Dimension[];
  /** The kind of each row (per-kind counts). */
  kind: boolean;
  /** Metric count and sum. */
  metrics: boolean;
}

/**
 * Visits the rollup rows of a scan, reading only the columns a query needs: producing the other
 * columns of 10,000 rows was most of a query's time on SQLite. The row passed to `visit` is one
 * object reused for every row (a query scans up to 10,000, and their garbage showed in its p95):
 * copy what outlives the call. Returns the number of rows visited.
 */
export async function scanRollups(
  db: Executor,
  scan: RollupScan,
  want: RollupColumns,
  visit: (row: Readonly<RollupRow>) => void,
): Promise<number> {
  const dimensionColumns = want.dimensions.map((d) => DIMENSION_COLUMNS[d]);
  const columns = new Set<keyof TelemetryRollupsTable>(['bucket_start', 'events', 'subjects', ...dimensionColumns]);
  if (want.kind) columns.add('kind');
  if (want.metrics) {
    columns.add('metric_count');
    columns.add('metric_sum');
  }
  const selected = [...columns];
  // Rows as arrays (db/array-rows.ts): the position of each column in them.
  const at = (column: keyof TelemetryRollupsTable) => selected.indexOf(column);
  const [bucketAt, eventsAt, subjectsAt, kindAt, countAt, sumAt] = [
    at('bucket_start'),
    at('events'),
    at('subjects'),
    at('kind'),
    at('metric_count'),
    at('metric_sum'),
  ];
  const dimensionAt = dimensionColumns.map(at);
  const rows = await selectArrayRows(db, rollupQuery(db, scan).select(selected).orderBy('bucket_start'), selected);
  const row: RollupRow = {
    bucketStart: 0,
    dimensions: dimensionColumns.map(() => null),
    kind: null,
    events: 0,
    metricCount: 0,
    metricSum: 0,
    subjects: new Uint8Array(),
  };
  for (const r of rows) {
    row.bucketStart = Number(r[bucketAt]);
    // Absent dimensions are stored as ''.
    for (let i = 0; i < dimensionAt.length; i++) {
      const value = r[dimensionAt[i]!] as string;
      row.dimensions[i] = value === '' ? null : value;
    }
    row.kind = want.kind ? (r[kindAt] as string) : null;
    row.events = Number(r[eventsAt]);
    row.metricCount = want.metrics ? Number(r[countAt]) : 0;
    row.metricSum = want.metrics ? Number(r[sumAt]) : 0;
    row.subjects = r[subjectsAt] as Uint8Array;
    visit(row);
  }
  return rows.length;
}

export interface EventScan {
  envId: string;
  /** [from, to) on event time. */
  from: number;
  to: number;
  kinds: string[];
  filters: DimensionFilters;
  /** Keyset position: events strictly older than (ts, id) in (ts desc, id desc) order. */
  before?: { ts: number; id: string };
  limit: number;
}

/** Raw events newest first, redacted in the query itself: the targeting key, value and attributes
 * are never read. */
export async function listEvents(db: Executor, scan: EventScan): Promise<RedactedEvent[]> {
  let q = own(db)
    .selectFrom('telemetry_events')
    .select([
      'id',
      'kind',
      'ts',
      'received_at',
      'flag_key',
      'variant',
      'reason',
      'experiment_id',
      'iteration_id',
      'iteration_revision',
      'metric_key',
      'metric_value',
    ])
    .where('env_id', '=', scan.envId)
    .where('ts', '>=', scan.from)
    .where('ts', '<', scan.to)
    .where('kind', 'in', scan.kinds);
  for (const dim of DIMENSIONS) {
    const values = scan.filters[dim];
    if (values && values.length > 0) q = q.where(DIMENSION_COLUMNS[dim], 'in', values);
  }
  const before = scan.before;
  if (before)
    q = q.where((eb) =>
      eb.or([eb('ts', '<', before.ts), eb.and([eb('ts', '=', before.ts), eb('id', '<', before.id)])]),
    );
  const rows = await q.orderBy('ts', 'desc').orderBy('id', 'desc').limit(scan.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind as RedactedEvent['kind'],
    ts: Number(r.ts),
    receivedAt: Number(r.received_at),
    flagKey: r.flag_key,
    variant: r.variant,
    reason: r.reason,
    experimentId: r.experiment_id,
    iterationId: r.iteration_id,
    iterationRevision: r.iteration_revision,
    metricKey: r.metric_key,
    // Stored values are finite (ingestion refuses others, migration 0130 removed older ones); one
    // that is not would be null here, never a serialiser's failure.
    metricValue: r.metric_value === null || !Number.isFinite(Number(r.metric_value)) ? null : Number(r.metric_value),
  }));
}

/** The event time of a stored event (legacy cursors name an event by id). */
export async function eventTimeOf(db: Executor, envId: string, eventId: string): Promise<number | null> {
  const row = keysApart(db)
    ? await own(db)
        .selectFrom('telemetry_event_keys')
        .select('ts')
        .where('env_id', '=', envId)
        .where('id', '=', eventId)
        .executeTakeFirst()
    : await own(db)
        .selectFrom('telemetry_events')
        .select('ts')
        .where('env_id', '=', envId)
        .where('id', '=', eventId)
        .executeTakeFirst();
  return row ? Number(row.ts) : null;
}

/** Marks a legacy cursor digest as redeemed; false when it already was. */
export async function redeemLegacyCursor(db: Executor, digest: string, now: number): Promise<boolean> {
  const rows = await own(db)
    .insertInto('insight_legacy_cursors')
    .values({ digest, used_at: now })
    .onConflict((oc) => oc.column('digest').doNothing())
    .returning('digest')
    .execute();
  return rows.length === 1;
}

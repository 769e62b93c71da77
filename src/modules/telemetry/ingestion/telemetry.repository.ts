// Telemetry storage: one transaction per batch stores the new events (deduplicated by the event
// table's own primary key on SQLite, by telemetry_event_keys on PostgreSQL: decision 0047), the merged
// hourly rollups (one upsert per bucket of the batch, not per event) and the watermark. Reads for
// insights: rollup scans, redacted raw events, the watermark. Retention purges.
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { dropDayPartitionsBefore, ensureDayPartitions, partitionsByDay } from '../../../db/day-partitions.js';
import { transactionSequence } from '../../../db/commit-sequence.js';
import { repeatedInsert } from '../../../db/repeated-inserts.js';
import { forUpdate, lockNeedsRows, writersRunConcurrently } from '../../../db/row-locks.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import { SubjectSketch } from './subject-sketch.js';
import type {
  TelemetryEventKeysTable,
  TelemetryEventsTable,
  TelemetryRollupsTable,
  TelemetryTables,
} from './telemetry.table.js';
import {
  DAY_MS,
  DIMENSION_COLUMNS,
  DIMENSIONS,
  HOUR_MS,
  type Dimension,
  type DimensionFilters,
  type RedactedEvent,
  type RollupRow,
  type ValidEvent,
  type Watermark,
} from './telemetry.model.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<TelemetryTables>();

export type StoreOutcome = 'accepted' | 'duplicate' | 'conflict';

type RollupKey = Pick<
  TelemetryRollupsTable,
  | 'env_id'
  | 'bucket_start'
  | 'kind'
  | 'flag_key'
  | 'variant'
  | 'reason'
  | 'experiment_id'
  | 'iteration_id'
  | 'metric_key'
  | 'slot'
>;

export interface RollupDelta {
  key: RollupKey;
  events: number;
  metricCount: number;
  metricSum: number;
  metricSumSq: number;
  sketch: SubjectSketch;
}

const KEY_COLUMNS = [
  'env_id',
  'bucket_start',
  'kind',
  'flag_key',
  'variant',
  'reason',
  'experiment_id',
  'iteration_id',
  'metric_key',
  'slot',
] as const;
const EVENT_COLUMNS = [
  'env_id',
  'id',
  'app_id',
  'kind',
  'ts',
  'received_at',
  'feed_seq',
  'targeting_key',
  'flag_key',
  'variant',
  'value',
  'reason',
  'experiment_id',
  'iteration_id',
  'iteration_revision',
  'metric_key',
  'metric_value',
  'attributes',
  'content_hash',
] as const satisfies readonly (keyof TelemetryEventsTable)[];
const ROLLUP_COLUMNS = [
  ...KEY_COLUMNS,
  'events',
  'metric_count',
  'metric_sum',
  'metric_sum_sq',
  'subjects',
  'updated_at',
] as const satisfies readonly (keyof TelemetryRollupsTable)[];
/**
 * The writer slot of this process (decision 0048): the watermark row and rollup rows its batches
 * write. On PostgreSQL one of 64, drawn once per process, so processes ingesting into one environment
 * lock rows of their own instead of taking turns on shared ones (two processes share a slot with
 * probability 1/64: they take turns then, as every process did before); a restart may draw another
 * slot, so an environment holds at most 64 watermark rows and a bucket at most 64 rows. On SQLite,
 * where one writer holds the database's write lock at a time anyway, always 0.
 */
export const WRITER_SLOTS = 64;
const PROCESS_SLOT = randomInt(WRITER_SLOTS);
export function writerSlot(db: Executor): number {
  return writersRunConcurrently(db) ? PROCESS_SLOT : 0;
}

/** Rollup rows per statement: 15 parameters each stays far below SQLite's 32,766 per statement. */
const ROLLUP_ROWS_PER_STATEMENT = 100;

// The statements every batch runs, compiled once per row count (db/repeated-inserts.ts).
const insertEventKeys = repeatedInsert<TelemetryEventKeysTable, { id: string; content_hash: string }>(
  ['env_id', 'id', 'content_hash', 'ts'],
  (trx, rows) =>
    own(trx)
      .insertInto('telemetry_event_keys')
      .values(rows)
      .onConflict((oc) => oc.columns(['env_id', 'id']).doNothing())
      .returning(['id', 'content_hash']),
);
const insertEvents = repeatedInsert<TelemetryEventsTable>(EVENT_COLUMNS, (trx, rows) =>
  own(trx).insertInto('telemetry_events').values(rows),
);
/** SQLite: the events whose id is new for the environment are stored, the others skipped, in one statement. */
const insertNewEvents = repeatedInsert<TelemetryEventsTable, { id: string; content_hash: string }>(
  EVENT_COLUMNS,
  (trx, rows) =>
    own(trx)
      .insertInto('telemetry_events')
      .values(rows)
      .onConflict((oc) => oc.columns(['env_id', 'id']).doNothing())
      .returning(['id', 'content_hash']) as never,
);

/**
 * Whether dedup keys live in telemetry_event_keys (PostgreSQL, where raw events are partitioned by
 * day and a unique key must include the event time) rather than in the event table's own primary
 * key (SQLite). Decision 0047.
 */
export function keysApart(db: Executor): boolean {
  return partitionsByDay(db);
}
const insertMissingRollups = repeatedInsert<TelemetryRollupsTable>(ROLLUP_COLUMNS, (trx, rows) =>
  own(trx)
    .insertInto('telemetry_rollups')
    .values(rows)
    .onConflict((oc) => oc.columns([...KEY_COLUMNS]).doNothing()),
);
const upsertRollups = repeatedInsert<TelemetryRollupsTable>(ROLLUP_COLUMNS, (trx, rows) =>
  own(trx)
    .insertInto('telemetry_rollups')
    .values(rows)
    .onConflict((oc) =>
      oc.columns([...KEY_COLUMNS]).doUpdateSet((eb) => ({
        events: eb.ref('excluded.events'),
        metric_count: eb.ref('excluded.metric_count'),
        metric_sum: eb.ref('excluded.metric_sum'),
        metric_sum_sq: eb.ref('excluded.metric_sum_sq'),
        subjects: eb.ref('excluded.subjects'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    ),
);

async function inChunks<R>(rows: R[], size: number, run: (chunk: R[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await run(rows.slice(i, i + size));
}

function eventRow(
  envId: string,
  appId: string,
  receivedAt: number,
  feedSeq: number,
  v: ValidEvent,
): TelemetryEventsTable {
  const e = v.event;
  return {
    env_id: envId,
    id: e.id,
    app_id: appId,
    kind: e.kind,
    ts: e.ts,
    received_at: receivedAt,
    feed_seq: feedSeq,
    targeting_key: e.targetingKey ?? null,
    flag_key: e.flagKey ?? null,
    variant: e.variant ?? null,
    value: e.value === undefined ? null : JSON.stringify(e.value),
    reason: e.reason ?? null,
    experiment_id: e.experimentId ?? null,
    iteration_id: e.iterationId ?? null,
    iteration_revision: e.iterationRevision ?? null,
    metric_key: e.metricKey ?? null,
    metric_value: e.metricValue ?? null,
    attributes: e.attributes === undefined ? null : JSON.stringify(e.attributes),
    content_hash: v.contentHash,
  };
}

/** The batch's events folded into one delta per hourly bucket (of the writer's slot). */
export function rollupDeltas(envId: string, events: ValidEvent[], slot: number): RollupDelta[] {
  const deltas = new Map<string, RollupDelta>();
  for (const { event: e } of events) {
    const key: RollupKey = {
      env_id: envId,
      bucket_start: Math.floor(e.ts / HOUR_MS) * HOUR_MS,
      kind: e.kind,
      flag_key: e.flagKey ?? '',
      variant: e.variant ?? '',
      reason: e.reason ?? '',
      experiment_id: e.experimentId ?? '',
      iteration_id: e.iterationId ?? '',
      metric_key: e.metricKey ?? '',
      slot,
    };
    const id = keyOf(key);
    let delta = deltas.get(id);
    if (!delta) {
      delta = { key, events: 0, metricCount: 0, metricSum: 0, metricSumSq: 0, sketch: new SubjectSketch() };
      deltas.set(id, delta);
    }
    delta.events++;
    if (e.metricValue !== undefined) {
      delta.metricCount++;
      delta.metricSum += e.metricValue;
      delta.metricSumSq += e.metricValue * e.metricValue;
    }
    if (e.targetingKey !== undefined) delta.sketch.add(e.targetingKey);
  }
  // A fixed order: concurrent batches lock shared buckets in the same order (no deadlock).
  return [...deltas.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, d]) => d);
}

/** A bucket's identity as a map key: length-prefixed fields (injective whatever the values hold),
 * cheaper per event than JSON. */
const field = (v: string) => `${v.length}:${v}`;
const keyOf = (k: RollupKey) =>
  `${field(k.env_id)}${Number(k.bucket_start)}|${Number(k.slot)}|${field(k.kind)}${field(k.flag_key)}${field(k.variant)}${field(k.reason)}${field(k.experiment_id)}${field(k.iteration_id)}${field(k.metric_key)}`;
const distinct = <C extends 'bucket_start' | 'kind' | 'flag_key'>(deltas: RollupDelta[], column: C) => [
  ...new Set(deltas.map((d) => d.key[column])),
];

export async function mergeRollups(trx: Executor, deltas: RollupDelta[], now: number): Promise<void> {
  if (deltas.length === 0) return;
  // Rows first (so the lock below covers buckets another batch is creating), then lock and merge.
  // Called after the batch's first write: on SQLite the transaction already holds the write lock.
  if (lockNeedsRows(trx)) {
    const empty = new SubjectSketch().encode();
    const missing = deltas.map((d) => ({
      ...d.key,
      events: 0,
      metric_count: 0,
      metric_sum: 0,
      metric_sum_sq: 0,
      subjects: empty,
      updated_at: now,
    }));
    await inChunks(missing, ROLLUP_ROWS_PER_STATEMENT, (chunk) => insertMissingRollups(trx, chunk));
  }
  const current = await forUpdate(
    trx,
    own(trx)
      .selectFrom('telemetry_rollups')
      .selectAll()
      .where('env_id', '=', deltas[0]!.key.env_id)
      .where('slot', '=', deltas[0]!.key.slot)
      // Leading key columns as IN lists (index seeks); the exact keys are matched below.
      .where('bucket_start', 'in', distinct(deltas, 'bucket_start'))
      .where('kind', 'in', distinct(deltas, 'kind'))
      .where('flag_key', 'in', distinct(deltas, 'flag_key')),
  ).execute();
  const byKey = new Map(current.map((r) => [keyOf(r), r]));
  const merged = deltas.map((d) => {
    const row = byKey.get(keyOf(d.key));
    const metricSum = Number(row?.metric_sum ?? 0) + d.metricSum;
    const metricSumSq = Number(row?.metric_sum_sq ?? 0) + d.metricSumSq;
    // Accepted values are at most MAX_METRIC_MAGNITUDE, so these sums cannot overflow; a bucket
    // that still would hold a non-finite one is refused, failing this batch alone (batch-writer.ts),
    // never stored to fail every later batch and query that reads it.
    if (!Number.isFinite(metricSum) || !Number.isFinite(metricSumSq)) {
      throw new Error(
        `the rollup bucket of metric "${d.key.metric_key}" at ${new Date(Number(d.key.bucket_start)).toISOString()} would hold a metric sum that is not finite`,
      );
    }
    return {
      ...d.key,
      events: Number(row?.events ?? 0) + d.events,
      metric_count: Number(row?.metric_count ?? 0) + d.metricCount,
      metric_sum: metricSum,
      metric_sum_sq: metricSumSq,
      subjects: row ? d.sketch.encodeMergedWith(row.subjects) : d.sketch.encode(),
      updated_at: now,
    };
  });
  await inChunks(merged, ROLLUP_ROWS_PER_STATEMENT, (chunk) => upsertRollups(trx, chunk));
}

export interface StoreBatchInput {
  envId: string;
  appId: string;
  receivedAt: number;
  events: ValidEvent[];
}

/** Day partitions this process knows exist (PostgreSQL), so a batch rarely asks the catalog. */
const knownPartitions = new WeakMap<object, Set<number>>();

async function ensurePartitions(db: Kysely<Database>, events: ValidEvent[]): Promise<void> {
  if (!partitionsByDay(db)) return;
  let known = knownPartitions.get(db);
  if (!known) knownPartitions.set(db, (known = new Set()));
  const missing = new Set<number>();
  for (const { event } of events) {
    const day = Math.floor(event.ts / DAY_MS);
    if (!known.has(day)) missing.add(day);
  }
  if (missing.size === 0) return;
  await ensureDayPartitions(db, 'telemetry_events', missing);
  for (const day of missing) known.add(day);
}

/** What one batch stored inside a group's transaction: its outcomes, and the events it added. */
interface StoredBatch {
  outcomes: StoreOutcome[];
  accepted: ValidEvent[];
}

/** Dedup and raw rows of one batch, inside the group's transaction (rollups and watermarks follow per environment). */
async function storeRows(trx: Executor, input: StoreBatchInput, feedSeq: number): Promise<StoredBatch> {
  if (input.events.length === 0) return { outcomes: [], accepted: [] };
  const apart = keysApart(trx);
  // SQLite: the rows themselves, new ids stored and the others skipped by the primary key; PostgreSQL:
  // the keys first, then the rows of the ids that came back.
  const { rows: inserted } = apart
    ? await insertEventKeys(
        trx,
        input.events.map((v) => ({ env_id: input.envId, id: v.event.id, content_hash: v.contentHash, ts: v.event.ts })),
      )
    : await insertNewEvents(
        trx,
        input.events.map((v) => eventRow(input.envId, input.appId, input.receivedAt, feedSeq, v)),
      );
  // In one batch the same id can appear twice: the first occurrence is the new one (on SQLite the
  // statement inserts rows in order, so the first one is the row stored).
  const fresh = new Map(inserted.map((r) => [r.id, r.content_hash]));
  const taken = new Set<string>();
  const accepted: ValidEvent[] = [];
  const others: ValidEvent[] = [];
  for (const v of input.events) {
    if (fresh.has(v.event.id) && !taken.has(v.event.id)) {
      taken.add(v.event.id);
      accepted.push(v);
    } else others.push(v);
  }
  const stored = new Map(fresh);
  const unknown = others.map((v) => v.event.id).filter((id) => !stored.has(id));
  if (unknown.length > 0) {
    const ids = [...new Set(unknown)];
    const rows = apart
      ? await own(trx)
          .selectFrom('telemetry_event_keys')
          .select(['id', 'content_hash'])
          .where('env_id', '=', input.envId)
          .where('id', 'in', ids)
          .execute()
      : await own(trx)
          .selectFrom('telemetry_events')
          .select(['id', 'content_hash'])
          .where('env_id', '=', input.envId)
          .where('id', 'in', ids)
          .execute();
    for (const r of rows) stored.set(r.id, r.content_hash ?? '');
  }
  if (apart && accepted.length > 0)
    await insertEvents(
      trx,
      accepted.map((v) => eventRow(input.envId, input.appId, input.receivedAt, feedSeq, v)),
    );
  const acceptedSet = new Set(accepted);
  return {
    accepted,
    outcomes: input.events.map((v) =>
      acceptedSet.has(v) ? 'accepted' : stored.get(v.event.id) === v.contentHash ? 'duplicate' : 'conflict',
    ),
  };
}

/**
 * Stores several batches in one transaction: an event is accepted when its id is new for the
 * environment, a duplicate when the stored event with that id has the same content, a conflict
 * otherwise. Rollups are merged once per environment for all the group's accepted events (a bucket
 * several batches touch is written once), and each environment's watermark moves to its newest
 * event. Returns one outcome list per batch, each in input order. Throws when storage fails:
 * nothing of the group is stored then.
 */
export async function storeBatches(db: Kysely<Database>, inputs: StoreBatchInput[]): Promise<StoreOutcome[][]> {
  if (inputs.every((i) => i.events.length === 0)) return inputs.map(() => []);
  await ensurePartitions(
    db,
    inputs.flatMap((i) => i.events),
  );
  return inTransaction(db, async (trx) => {
    // One sequence for the whole group: the export feed reads in commit order (decision 0036).
    const feedSeq = await transactionSequence(trx);
    const results: StoreOutcome[][] = [];
    const byEnv = new Map<string, { accepted: ValidEvent[]; receivedAt: number; newest: string | null }>();
    for (const input of inputs) {
      const batch = await storeRows(trx, input, feedSeq);
      results.push(batch.outcomes);
      const env = byEnv.get(input.envId) ?? { accepted: [], receivedAt: input.receivedAt, newest: null };
      env.accepted.push(...batch.accepted);
      if (batch.accepted.length > 0 && (env.newest === null || input.receivedAt >= env.receivedAt)) {
        env.receivedAt = input.receivedAt;
        env.newest = batch.accepted[batch.accepted.length - 1]!.event.id;
      }
      byEnv.set(input.envId, env);
    }
    // Environments in a fixed order: concurrent groups lock their rollups in the same order.
    for (const envId of [...byEnv.keys()].sort()) {
      const env = byEnv.get(envId)!;
      if (env.newest === null) continue;
      const slot = writerSlot(trx);
      await mergeRollups(trx, rollupDeltas(envId, env.accepted, slot), env.receivedAt);
      await own(trx)
        .insertInto('telemetry_watermarks')
        .values({ env_id: envId, slot, received_at: env.receivedAt, event_id: env.newest })
        .onConflict((oc) =>
          oc
            .columns(['env_id', 'slot'])
            .doUpdateSet((eb) => ({
              received_at: eb.ref('excluded.received_at'),
              event_id: eb.ref('excluded.event_id'),
            }))
            .where('telemetry_watermarks.received_at', '<=', env.receivedAt),
        )
        .execute();
    }
    return results;
  });
}

/** Stores one batch in a transaction of its own (see storeBatches). */
export async function storeBatch(db: Kysely<Database>, input: StoreBatchInput): Promise<StoreOutcome[]> {
  return (await storeBatches(db, [input]))[0]!;
}

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
  const rows = (await rollupQuery(db, scan)
    .select([...columns])
    .orderBy('bucket_start')
    .execute()) as Partial<TelemetryRollupsTable>[];
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
    row.bucketStart = Number(r.bucket_start);
    // Absent dimensions are stored as ''.
    for (let i = 0; i < dimensionColumns.length; i++) {
      const value = r[dimensionColumns[i]!] as string;
      row.dimensions[i] = value === '' ? null : value;
    }
    row.kind = want.kind ? r.kind! : null;
    row.events = Number(r.events);
    row.metricCount = want.metrics ? Number(r.metric_count) : 0;
    row.metricSum = want.metrics ? Number(r.metric_sum) : 0;
    row.subjects = r.subjects!;
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

export interface PurgeResult {
  droppedPartitions: number;
  deletedEvents: number;
  deletedKeys: number;
  deletedRollups: number;
}

export async function purgeBefore(
  db: Kysely<Database>,
  rawBefore: number,
  rollupsBefore: number,
): Promise<PurgeResult> {
  const droppedPartitions = await dropDayPartitionsBefore(db, 'telemetry_events', rawBefore);
  // On SQLite, and for rows in PostgreSQL's default partition, rows are deleted.
  const events = await own(db).deleteFrom('telemetry_events').where('ts', '<', rawBefore).executeTakeFirst();
  // SQLite's keys are the event rows just deleted.
  const keys = keysApart(db)
    ? await own(db).deleteFrom('telemetry_event_keys').where('ts', '<', rawBefore).executeTakeFirst()
    : events;
  const rollups = await own(db)
    .deleteFrom('telemetry_rollups')
    .where('bucket_start', '<', rollupsBefore)
    .executeTakeFirst();
  await own(db).deleteFrom('insight_legacy_cursors').where('used_at', '<', rawBefore).execute();
  return {
    droppedPartitions,
    deletedEvents: Number(events.numDeletedRows),
    deletedKeys: Number(keys.numDeletedRows),
    deletedRollups: Number(rollups.numDeletedRows),
  };
}

// The hourly rollups' write path: a batch's events folded into one delta per bucket, then merged into
// the stored rows (one upsert per bucket of the batch, not per event) under their row locks.
import { repeatedInsert, type PostgresColumnTypes } from '../../../db/repeated-inserts.js';
import { forUpdate, lockNeedsRows } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';
import { SubjectSketch } from './subject-sketch.js';
import type { TelemetryRollupsTable, TelemetryTables } from './telemetry.table.js';
import { HOUR_MS, type ValidEvent } from './telemetry.model.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<TelemetryTables>();

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
const ROLLUP_COLUMNS = [
  ...KEY_COLUMNS,
  'events',
  'metric_count',
  'metric_sum',
  'metric_sum_sq',
  'subjects',
  'updated_at',
] as const satisfies readonly (keyof TelemetryRollupsTable)[];

/** Rollup rows per statement: 15 parameters each stays far below SQLite's 32,766 per statement. */
const ROLLUP_ROWS_PER_STATEMENT = 100;

/** The PostgreSQL types of the rollup row's columns (migrations 0020, 0151). */
const ROLLUP_TYPES: PostgresColumnTypes<TelemetryRollupsTable> = {
  env_id: 'text',
  bucket_start: 'bigint',
  kind: 'text',
  flag_key: 'text',
  variant: 'text',
  reason: 'text',
  experiment_id: 'text',
  iteration_id: 'text',
  metric_key: 'text',
  slot: 'integer',
  events: 'bigint',
  metric_count: 'bigint',
  metric_sum: 'double precision',
  metric_sum_sq: 'double precision',
  subjects: 'bytea',
  updated_at: 'bigint',
};

// Compiled once (db/repeated-inserts.ts).
const insertMissingRollups = repeatedInsert<TelemetryRollupsTable>(ROLLUP_COLUMNS, ROLLUP_TYPES, (trx, withRows) =>
  withRows(own(trx).insertInto('telemetry_rollups')).onConflict((oc) => oc.columns([...KEY_COLUMNS]).doNothing()),
);
const upsertRollups = repeatedInsert<TelemetryRollupsTable>(ROLLUP_COLUMNS, ROLLUP_TYPES, (trx, withRows) =>
  withRows(own(trx).insertInto('telemetry_rollups')).onConflict((oc) =>
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

/** The batch's events folded into one delta per hourly bucket (of the writer's slot). */
export function rollupDeltas(envId: string, events: ValidEvent[], slot: number): RollupDelta[] {
  const deltas = new Map<string, RollupDelta>();
  for (const { event: e } of events) {
    const bucketStart = Math.floor(e.ts / HOUR_MS) * HOUR_MS;
    // The bucket's identity without its environment and slot, the same for every event here: a
    // string per event, the key object only per new bucket.
    const id = `${bucketStart}|${field(e.kind)}${field(e.flagKey ?? '')}${field(e.variant ?? '')}${field(e.reason ?? '')}${field(e.experimentId ?? '')}${field(e.iterationId ?? '')}${field(e.metricKey ?? '')}`;
    let delta = deltas.get(id);
    if (!delta) {
      const key: RollupKey = {
        env_id: envId,
        bucket_start: bucketStart,
        kind: e.kind,
        flag_key: e.flagKey ?? '',
        variant: e.variant ?? '',
        reason: e.reason ?? '',
        experiment_id: e.experimentId ?? '',
        iteration_id: e.iterationId ?? '',
        metric_key: e.metricKey ?? '',
        slot,
      };
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

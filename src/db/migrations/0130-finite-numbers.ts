// Numbers at the edge of their type (issue 18). Ingestion used to accept `1e400` (Infinity) and sums
// that overflowed: raw events could hold a non-finite metric value, and rollup buckets a non-finite
// (on PostgreSQL also NaN) sum that failed every later batch touching the bucket and every query
// reading it. Both are refused now; this repairs what is already stored:
// - raw events whose metric value is not finite are deleted (no answer can carry them; their dedup
//   keys stay, so a retry of the same event is still a duplicate);
// - a rollup bucket whose metric sums are not finite gets its metric count and sums again from the
//   raw events still held for it, counting only values within today's bound (10^15), as ingestion
//   now would; its event count and subjects are left as they are;
// - baselines whose mean or variance is not finite are deleted (they describe nothing a plan can
//   use), and baseline units become 64-bit on PostgreSQL (the route accepts up to 10^12).
// |x| > 1e308 is true for ±Infinity on both engines and for PostgreSQL's NaN, which sorts above
// every number, and false for every finite double.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

const HOUR_MS = 3_600_000;
/** The bound of an accepted metric value (telemetry.model.ts MAX_METRIC_MAGNITUDE), as it is today. */
const MAX_METRIC_MAGNITUDE = 1e15;

const notFinite = (column: string) => sql<boolean>`abs(${sql.ref(column)}) > 1e308`;

interface RollupKey {
  env_id: string;
  bucket_start: number | string;
  kind: string;
  flag_key: string;
  variant: string;
  reason: string;
  experiment_id: string;
  iteration_id: string;
  metric_key: string;
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
] as const;
/** Rollups store an absent dimension as '', raw events as NULL. */
const DIMENSIONS = ['kind', 'flag_key', 'variant', 'reason', 'experiment_id', 'iteration_id', 'metric_key'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('telemetry_events').where(notFinite('metric_value')).execute();

  const poisoned = (await db
    .selectFrom('telemetry_rollups')
    .select([...KEY_COLUMNS])
    .where((eb) => eb.or([notFinite('metric_sum'), notFinite('metric_sum_sq')]))
    .execute()) as RollupKey[];
  for (const key of poisoned) {
    const start = Number(key.bucket_start);
    let q = db
      .selectFrom('telemetry_events')
      .select('metric_value')
      .where('env_id', '=', key.env_id)
      .where('ts', '>=', start)
      .where('ts', '<', start + HOUR_MS)
      .where('metric_value', 'is not', null);
    for (const column of DIMENSIONS) {
      const value = key[column];
      q = value === '' ? q.where(column, 'is', null) : q.where(column, '=', value);
    }
    let count = 0;
    let sum = 0;
    let sumSquares = 0;
    for (const { metric_value: raw } of await q.execute()) {
      const value = Number(raw);
      if (!(Math.abs(value) <= MAX_METRIC_MAGNITUDE)) continue;
      count++;
      sum += value;
      sumSquares += value * value;
    }
    let update = db
      .updateTable('telemetry_rollups')
      .set({ metric_count: count, metric_sum: sum, metric_sum_sq: sumSquares });
    for (const column of KEY_COLUMNS) update = update.where(column, '=', key[column]);
    await update.execute();
  }

  await db
    .deleteFrom('experiment_baselines')
    .where((eb) => eb.or([notFinite('mean'), notFinite('variance')]))
    .execute();
  if (dialectOf(db) === 'postgres')
    await sql`ALTER TABLE experiment_baselines ALTER COLUMN units TYPE bigint`.execute(db);
}

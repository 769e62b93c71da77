// Migration 0130 repairs the non-finite numbers older ingestion could store (issue 18).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, testDatabase } from '../../test/helpers/test-app.js';
import { up } from './migrations/0130-finite-numbers.js';

const HOUR = 3_600_000;
const BUCKET = 1_790_000 * HOUR;

const event = (id: string, metricValue: number | null, fields: Record<string, unknown> = {}) => ({
  env_id: 'env_m',
  id,
  app_id: 'app_m',
  kind: 'outcome',
  ts: BUCKET + 60_000,
  received_at: BUCKET + 60_000,
  feed_seq: 1,
  targeting_key: `u-${id}`,
  flag_key: null,
  variant: 'on',
  value: null,
  reason: null,
  experiment_id: null,
  iteration_id: null,
  iteration_revision: null,
  metric_key: 'revenue',
  metric_value: metricValue,
  attributes: null,
  content_hash: `h-${id}`,
  ...fields,
});

const rollup = (fields: Record<string, unknown>) => ({
  env_id: 'env_m',
  bucket_start: BUCKET,
  kind: 'outcome',
  flag_key: '',
  variant: 'on',
  reason: '',
  experiment_id: '',
  iteration_id: '',
  metric_key: 'revenue',
  slot: 0,
  events: 4,
  metric_count: 4,
  metric_sum: Infinity,
  metric_sum_sq: Infinity,
  subjects: Buffer.from([1]),
  updated_at: BUCKET,
  ...fields,
});

const baseline = (id: string, mean: number, variance: number) => ({
  id,
  env_id: 'env_m',
  experiment_id: 'exp_m',
  version: Number(id.slice(-1)),
  metric_id: 'met_m',
  metric_revision: 1,
  window_from: '2026-01-01T00:00:00.000Z',
  window_to: '2026-01-02T00:00:00.000Z',
  units: 10,
  mean,
  variance,
  source: 'manual',
  captured_at: '2026-01-02T00:00:00.000Z',
});

for (const dialect of dialects) {
  describe(`migration 0130 on ${dialect}`, () => {
    test('deletes non-finite raw values, rebuilds poisoned buckets from the values within the bound, drops unusable baselines', async (t) => {
      const database = await testDatabase(t, dialect);
      const db = database.handle.db;
      await db
        .insertInto('telemetry_events')
        .values([
          event('a', 5),
          event('b', Infinity),
          event('c', 2),
          event('d', 1e200),
          // Another bucket's values do not count.
          event('e', 100, { variant: 'off' }),
          event('f', 7, { ts: BUCKET + 2 * HOUR }),
        ])
        .execute();
      await db
        .insertInto('telemetry_rollups')
        .values([
          rollup({}),
          rollup({ variant: 'off', events: 1, metric_count: 1, metric_sum: 100, metric_sum_sq: 10_000 }),
          ...(dialect === 'postgres' ? [rollup({ variant: 'nan', metric_sum: NaN, metric_sum_sq: 1 })] : []),
        ])
        .execute();
      await db
        .insertInto('experiment_baselines')
        .values([
          baseline('bsl_1', 0.2, 0.16),
          baseline('bsl_2', Infinity, 1),
          ...(dialect === 'postgres' ? [baseline('bsl_3', 1, NaN)] : []),
        ])
        .execute();

      await up(db);

      const events = await db.selectFrom('telemetry_events').select(['id', 'metric_value']).orderBy('id').execute();
      assert.deepEqual(
        events.map((e) => e.id),
        ['a', 'c', 'd', 'e', 'f'],
      );
      const rows = await db.selectFrom('telemetry_rollups').selectAll().orderBy('variant').execute();
      const summary = rows.map((r) => [
        r.variant,
        Number(r.events),
        Number(r.metric_count),
        Number(r.metric_sum),
        Number(r.metric_sum_sq),
      ]);
      assert.deepEqual(summary, [
        ...(dialect === 'postgres' ? [['nan', 4, 0, 0, 0]] : []),
        ['off', 1, 1, 100, 10_000],
        // 5 and 2 count; 1e200 is past today's bound (10^15) and Infinity is gone; the event count stays.
        ['on', 4, 2, 7, 29],
      ]);
      const baselines = await db.selectFrom('experiment_baselines').select('id').execute();
      assert.deepEqual(
        baselines.map((b) => b.id),
        ['bsl_1'],
      );
      // Units beyond 32 bits fit now (the route accepts up to 10^12).
      await db
        .insertInto('experiment_baselines')
        .values({ ...baseline('bsl_4', 1, 1), units: 1e12 })
        .execute();
      const big = await db
        .selectFrom('experiment_baselines')
        .select('units')
        .where('id', '=', 'bsl_4')
        .executeTakeFirstOrThrow();
      assert.equal(Number(big.units), 1e12);
    });
  });
}

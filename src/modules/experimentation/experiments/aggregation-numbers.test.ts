// A value an aggregation cannot sum honestly (issue 18): a non-finite outcome value used to be pinned
// as `sum: null` and read as 0 ("n: 17, mean: 0, variance: 0", zero_variance, no diagnostic). Now the
// run fails with a diagnostic naming the metric and the previous aggregate stays pinned; an
// aggregate pinned that way before is read with the metric left out and said so.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { eventId, sendBatch, T0 } from '../../telemetry/ingestion/telemetry.fixtures.js';
import { experimentsClient } from './experiments.test-client.js';
import { testClock } from '../../../../test/helpers/clock.js';

const MINUTE = 60_000;

for (const dialect of dialects) {
  describe(`aggregation runs meeting numbers they cannot sum on ${dialect}`, () => {
    test('fail with a diagnostic naming the metric, never pin zeros; legacy aggregates leave the metric out, said so', async (t) => {
      const clock = testClock(T0);
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const db = database.handle.db;
      const c = await experimentsClient(app);
      const revenue = await c.post('/api/v1/metrics', {
        key: 'revenue',
        name: 'Revenue',
        kind: 'mean',
        eventMetricKey: 'revenue',
        direction: 'increase',
      });
      assert.equal(revenue.statusCode, 201, revenue.body);
      const revenueId = revenue.json().metric.id as string;
      const exp = await c.create({ secondaryMetrics: [{ metricId: revenueId, revision: 1 }] });
      await c.served(exp.id, 'transition', { to: 'running' });
      const iteration = (await c.get(`/api/v1/experiments/${exp.id}`)).json().experiment.currentIteration;
      const at = T0 + MINUTE;
      const events: Record<string, unknown>[] = [];
      for (const variant of ['control', 'treatment']) {
        for (let i = 0; i < 20; i++) {
          const subject = `${variant}-${i}`;
          events.push({
            id: eventId('x'),
            kind: 'exposure',
            timestamp: new Date(at).toISOString(),
            targetingKey: subject,
            flagKey: 'checkout',
            variant,
            experimentId: exp.id,
            iterationId: iteration.id,
          });
          events.push({
            id: eventId('o'),
            kind: 'outcome',
            timestamp: new Date(at + 1000).toISOString(),
            targetingKey: subject,
            metricKey: 'revenue',
            metricValue: i + (variant === 'treatment' ? 5 : 0),
          });
        }
      }
      clock.advance(2 * MINUTE);
      for (let i = 0; i < events.length; i += 100)
        assert.equal((await sendBatch(app, c.sdk, events.slice(i, i + 100))).json().rejected, 0);
      const path = `/api/v1/experiments/${exp.id}/results`;
      const query = { iterationId: iteration.id, iterationRevision: iteration.revision };
      await c.get(path, query);
      await app.jobs.drain();
      const first = (await c.get(path, query)).json();
      assert.equal(first.aggregate.variants[0].metrics[revenueId].n, 20);
      assert.equal(first.aggregate.variants[0].metrics[revenueId].mean, 9.5);

      // A value stored before ingestion refused it.
      await db
        .updateTable('telemetry_events')
        .set({ metric_value: Infinity })
        .where('targeting_key', '=', 'treatment-3')
        .where('kind', '=', 'outcome')
        .execute();
      const recompute = await c.post(`${path}/recompute`, {
        ...query,
        analysisEngineVersion: 'descriptive-v1',
        idempotencyKey: 'recompute-numbers-01',
        confirm: true,
      });
      assert.equal(recompute.statusCode, 200, recompute.body);
      await app.jobs.drain();
      const run = (await c.get(`${path}/runs/${recompute.json().run.id}`, { appId: c.appId, env: 'dev' })).json().run;
      assert.equal(run.state, 'failed');
      assert.equal(run.diagnostics.length, 1);
      assert.match(
        run.diagnostics[0],
        new RegExp(`metric ${revenueId} \\(outcome key "revenue"\\).*not a finite number`),
      );
      assert.match(run.remediation, /finite/);
      // The previous aggregate stays pinned: nothing reads as zero.
      const still = (await c.get(path, query)).json();
      assert.equal(still.aggregate.runId, first.aggregate.runId);
      assert.equal(
        still.aggregate.variants[1].metrics[revenueId].mean,
        first.aggregate.variants[1].metrics[revenueId].mean,
      );

      // An aggregate pinned before this (Infinity stored as null by JSON): the metric is left out.
      const pinned = await db
        .selectFrom('experiment_aggregation_runs')
        .select(['id', 'aggregate'])
        .where('id', '=', first.aggregate.runId)
        .executeTakeFirstOrThrow();
      const aggregate = JSON.parse(pinned.aggregate!);
      aggregate.variants[1].metrics[revenueId].sum = null;
      aggregate.variants[1].metrics[revenueId].sumSquares = null;
      await db
        .updateTable('experiment_aggregation_runs')
        .set({ aggregate: JSON.stringify(aggregate) })
        .where('id', '=', pinned.id)
        .execute();
      const legacy = await c.get(path, query);
      assert.equal(legacy.statusCode, 200, legacy.body);
      const body = legacy.json();
      assert.ok(
        body.aggregate.variants.every((v: any) => v.metrics[revenueId] === undefined),
        JSON.stringify(body.aggregate.variants),
      );
      assert.ok(!body.inference.fixedHorizon.some((x: any) => x.metricId === revenueId));
      assert.ok(
        body.diagnostics.some((d: string) => d.includes(revenueId) && /not finite/.test(d)),
        JSON.stringify(body.diagnostics),
      );
      // The other metric is analysed as before.
      assert.ok(body.inference.fixedHorizon.some((x: any) => x.metricId === c.metricId));
    });
  });
}

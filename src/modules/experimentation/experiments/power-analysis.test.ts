import { describe, test } from 'node:test';
import { performance } from 'node:perf_hooks';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectValidation } from '../../../../test/helpers/fixtures.js';
import { sendBatch, T0 } from '../../telemetry/ingestion/telemetry.fixtures.js';
import { experimentsClient } from './experiments.test-client.js';
import { testClock } from '../../../../test/helpers/clock.js';

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 5e-6, `${actual} ≈ ${expected}`);

for (const dialect of dialects) {
  describe(`experiment power analysis and baselines on ${dialect}`, () => {
    test("power analysis equals GrowthBook's vector; invalid and unsupported inputs say why", async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await experimentsClient(app);
      const res = await c.post('/api/v1/experiments/power-analysis', {
        metric: { kind: 'mean', mean: 10, variance: 3909.99977 },
        mde: 0.05,
        plannedUnits: 400000,
        variants: 3,
        alpha: 0.05,
        unitsPerDay: 10000,
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.readiness, 'ready');
      close(body.atPlannedUnits.power, 0.52144);
      close(body.atPlannedUnits.mde, 0.07027);
      // ⌈(1.959964 + 0.841621)² · 3909.99977 · (1 + 1.05²) / (0.05² · 100)⌉
      const z = 1.959963984540054 + 0.8416212335729143;
      assert.equal(
        body.requiredUnits.perVariant,
        Math.ceil((z ** 2 * 3909.99977 * (1 + 1.05 ** 2)) / (0.05 ** 2 * 100)),
      );
      assert.equal(body.requiredUnits.total, body.requiredUnits.perVariant * 3);
      assert.equal(body.durationDays, Math.ceil(body.requiredUnits.total / 10000));
      assert.equal(body.sensitivity.length, 5);
      assert.deepEqual(body.snapshot, { source: 'inline', freshness: { ageDays: 0, stale: false } });

      // Inline inputs outside the model are the request's 400, naming the field.
      const invalid = expectValidation(
        await c.post('/api/v1/experiments/power-analysis', {
          metric: { kind: 'mean', mean: 0, variance: 1 },
          mde: 0.05,
          unitsPerDay: 10,
        }),
        '/metric/mean',
      );
      assert.match(invalid.message, /non-zero/);
      const ratio = (
        await c.post('/api/v1/experiments/power-analysis', {
          metric: { kind: 'ratio', mean: 1, variance: 1 },
          mde: 0.05,
          unitsPerDay: 10,
        })
      ).json();
      assert.equal(ratio.readiness, 'unsupported');
      expectValidation(
        await c.post('/api/v1/experiments/power-analysis', {
          metric: { kind: 'mean', mean: 1, variance: 1 },
          mde: 0,
          unitsPerDay: 10,
        }),
      );
      expectValidation(await c.post('/api/v1/experiments/power-analysis', { mde: 0.1, unitsPerDay: 10 }));
      const sdk = await c.post(
        '/api/v1/experiments/power-analysis',
        { metric: { kind: 'mean', mean: 1, variance: 1 }, mde: 0.1, unitsPerDay: 10 },
        { token: c.sdk },
      );
      assert.ok([401, 403].includes(sdk.statusCode), sdk.body);
    });

    test('inputs outside the model are 400 with the reason: tiny effects and means, rates outside [0, 1], contradictory variances, plans past 10^15 units', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await experimentsClient(app);
      const plan = (body: Record<string, unknown>) =>
        c.post('/api/v1/experiments/power-analysis', { unitsPerDay: 1000, ...body });
      const refused = async (body: Record<string, unknown>, path: string, reason: RegExp) => {
        const error = expectValidation(await plan(body), path);
        assert.match(error.message, reason);
      };
      // These answered 500 (Infinity is not serialisable), or hung in the sequential search.
      await refused(
        { metric: { kind: 'mean', mean: 10, variance: 4 }, mde: 1e-200 },
        '/mde',
        /more than 1000000000000000 units/,
      );
      await refused(
        { metric: { kind: 'mean', mean: 1e-200, variance: 4 }, mde: 0.05 },
        '/mde',
        /more than 1000000000000000 units/,
      );
      await refused({ metric: { kind: 'mean', mean: 1, variance: 1e30 }, mde: 0.001 }, '/mde', /more than/);
      const started = performance.now();
      await refused(
        { metric: { kind: 'mean', mean: 10, variance: 4 }, mde: 1e-9, sequential: true },
        '/mde',
        /more than/,
      );
      assert.ok(performance.now() - started < 2000, 'the sequential search stops at the bound');
      await refused(
        { metric: { kind: 'mean', mean: 10, variance: 4 }, mde: 0.05, unitsPerDay: 1e-300 },
        '/unitsPerDay',
        /days/,
      );
      // A proportion's mean is a rate, its variance p(1 − p).
      await refused({ metric: { kind: 'proportion', mean: 1.5 }, mde: 0.05 }, '/metric/mean', /between 0 and 1/);
      await refused(
        { metric: { kind: 'proportion', mean: 0, variance: 0 }, mde: 0.05 },
        '/metric/mean',
        /between 0 and 1/,
      );
      await refused(
        { metric: { kind: 'proportion', mean: 0.2, variance: 5 }, mde: 0.05 },
        '/metric/variance',
        /contradicts .* p\(1 − p\) = 0\.16/,
      );
      await refused(
        { metric: { kind: 'proportion', mean: 0.6, variance: 0.24 }, mde: 1 },
        '/mde',
        /treatment rate would be 1\.2/,
      );
      await refused({ metric: { kind: 'mean', mean: 10 }, mde: 0.05 }, '/metric/variance', /required/);
      // Outside the field bounds altogether: the schema's 400.
      expectValidation(await plan({ metric: { kind: 'mean', mean: 1e16, variance: 1 }, mde: 0.05 }), '/metric/mean');
      expectValidation(
        await plan({ metric: { kind: 'mean', mean: 1, variance: 1e31 }, mde: 0.05 }),
        '/metric/variance',
      );
      expectValidation(await plan({ metric: { kind: 'mean', mean: 1, variance: 1 }, mde: 1001 }), '/mde');

      const derived = await plan({ metric: { kind: 'proportion', mean: 0.2 }, mde: 0.05 });
      assert.equal(derived.statusCode, 200, derived.body);
      assert.equal(derived.json().assumptions.variance, 0.2 * 0.8);
      const rounded = await plan({ metric: { kind: 'proportion', mean: 0.123, variance: 0.1079 }, mde: 0.05 });
      assert.equal(rounded.statusCode, 200, rounded.body);
      assert.equal(
        rounded.json().assumptions.variance,
        0.123 * 0.877,
        'the model plans with p(1 − p), not the rounded variance',
      );
      const proportion = await plan({ metric: { kind: 'proportion', mean: 0.5 }, mde: 0.5 });
      assert.equal(proportion.statusCode, 200, proportion.body);
      assert.deepEqual(
        proportion.json().sensitivity.map((r: any) => r.mde),
        [0.25, 0.375, 0.5, 0.75],
        'a doubled lift of a 50 % rate is no rate: that row is left out',
      );

      // A plan near the bound: exact integers, and the sensitivity rows past it left out.
      const large = await plan({ metric: { kind: 'mean', mean: 1, variance: 3e10 }, mde: 0.05, plannedUnits: 1e15 });
      assert.equal(large.statusCode, 200, large.body);
      const body = large.json();
      assert.ok(
        Number.isSafeInteger(body.requiredUnits.total) && body.requiredUnits.total <= 1e15,
        String(body.requiredUnits.total),
      );
      assert.deepEqual(
        body.sensitivity.map((r: any) => r.mde),
        [0.0375, 0.05, 0.075, 0.1],
      );
      assert.ok(body.sensitivity.every((r: any) => Number.isSafeInteger(r.requiredUnits) && r.requiredUnits <= 1e15));
      assert.ok(Number.isFinite(body.atPlannedUnits.power));
    });

    test('baselines: manual and from telemetry, idempotent, conflicts, power analysis from a baseline', async (t) => {
      const clock = testClock(T0);
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const c = await experimentsClient(app);
      const exp = await c.create();
      const path = `/api/v1/experiments/${exp.id}/baselines`;
      const window = { from: new Date(T0 - 3_600_000).toISOString(), to: new Date(T0 + 3_600_000).toISOString() };

      const manual = {
        metricId: c.metricId,
        metricRevision: 1,
        window,
        source: 'manual',
        values: { units: 1000, mean: 0.2, variance: 0.16 },
      };
      const first = await c.post(path, manual, { idem: 'baseline-key-0001' });
      assert.equal(first.statusCode, 201, first.body);
      const b1 = first.json().baseline;
      assert.match(b1.id, /^bsl_/);
      assert.equal(b1.version, 1);
      assert.deepEqual([b1.units, b1.mean, b1.variance, b1.source], [1000, 0.2, 0.16, 'manual']);
      const replay = await c.post(path, manual, { idem: 'baseline-key-0001' });
      assert.equal(replay.statusCode, 201);
      assert.equal(replay.json().baseline.id, b1.id);
      const changed = await c.post(
        path,
        { ...manual, values: { units: 1000, mean: 0.3, variance: 0.21 } },
        { idem: 'baseline-key-0001' },
      );
      assert.equal(changed.statusCode, 409, changed.body);

      expectValidation(await c.post(path, { ...manual, window: { from: window.to, to: window.from } }));
      expectValidation(await c.post(path, { ...manual, metricRevision: 2 }));
      expectValidation(await c.post(path, { ...manual, values: undefined }));
      // The primary metric is a proportion: its manual baseline is a rate with variance p(1 − p).
      expectValidation(
        await c.post(path, { ...manual, values: { units: 10, mean: 1.5, variance: 0.16 } }),
        '/values/mean',
      );
      expectValidation(
        await c.post(path, { ...manual, values: { units: 10, mean: 0.2, variance: 3 } }),
        '/values/variance',
      );

      // Four subjects seen, one of them converted (twice: a proportion counts it once).
      const at = new Date(T0).toISOString();
      const events = ['s1', 's2', 's3', 's4'].map((s, i) => ({
        id: `x-${i}`,
        kind: 'exposure',
        timestamp: at,
        targetingKey: s,
        flagKey: 'checkout',
        variant: 'control',
      }));
      events.push(
        { id: 'o-1', kind: 'outcome', timestamp: at, targetingKey: 's1', metricKey: 'checkout.completed' } as never,
        { id: 'o-2', kind: 'outcome', timestamp: at, targetingKey: 's1', metricKey: 'checkout.completed' } as never,
      );
      const sent = await sendBatch(app, c.sdk, events);
      assert.ok(sent.statusCode < 300, sent.body);
      const fromTelemetry = await c.post(path, {
        metricId: c.metricId,
        metricRevision: 1,
        window,
        source: 'telemetry',
      });
      assert.equal(fromTelemetry.statusCode, 201, fromTelemetry.body);
      const b2 = fromTelemetry.json().baseline;
      assert.deepEqual([b2.version, b2.units, b2.mean, b2.variance, b2.source], [2, 4, 0.25, 0.1875, 'telemetry']);

      const list = await c.get(path);
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().baselines.map((b: any) => b.version),
        [2, 1],
      );

      clock.advance(40 * 86_400_000);
      const planned = await c.post('/api/v1/experiments/power-analysis', {
        experimentId: exp.id,
        baselineId: b1.id,
        mde: 0.1,
        unitsPerDay: 500,
      });
      assert.equal(planned.statusCode, 200, planned.body);
      const snap = planned.json().snapshot;
      assert.equal(snap.source, 'baseline');
      assert.equal(snap.baselineId, b1.id);
      assert.equal(snap.version, 1);
      assert.equal(snap.freshness.stale, true);
      assert.equal(planned.json().assumptions.variants, 2);
      const mismatch = await c.post('/api/v1/experiments/power-analysis', {
        baselineId: b1.id,
        metric: { kind: 'proportion', mean: 0.3, variance: 0.21 },
        mde: 0.1,
        unitsPerDay: 500,
      });
      assert.equal(mismatch.statusCode, 400, mismatch.body);
      assert.equal(mismatch.json().error?.code ?? mismatch.json().code, 'baseline_mismatch');
    });
  });
}

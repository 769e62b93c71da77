// Issue 18: suppression by differencing. A multi-valued filter or a total over a dimension the query
// does not group by never includes a value whose own cell would be suppressed, so subtracting a
// narrower query's visible cells never gives a suppressed cell's value (docs/insights.md).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call } from '../../../../test/helpers/fixtures.js';
import { eventId, exposure, sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();
const AT = T0 - HOUR + 60_000;

function outcome(subject: string, metricKey: string, metricValue: number, variant = 'on') {
  return {
    id: eventId('o'),
    kind: 'outcome',
    timestamp: iso(AT + 1000),
    targetingKey: subject,
    flagKey: 'shown',
    variant,
    metricKey,
    metricValue,
  };
}

/**
 * 25 subjects on `on` (revenue 1 each, and `clicks` 2 each), 5 on `off` (revenue 100 each), and one
 * subject alone with metric `rev` (1000): `off` and `rev` are cells under 20 subjects.
 */
async function population(app: FastifyInstance, token: string) {
  const items = [
    ...Array.from({ length: 25 }, (_, i) => exposure(AT, `on-${i}`)),
    ...Array.from({ length: 5 }, (_, i) => exposure(AT, `off-${i}`, { variant: 'off' })),
    ...Array.from({ length: 25 }, (_, i) => outcome(`on-${i}`, 'revenue', 1)),
    ...Array.from({ length: 25 }, (_, i) => outcome(`on-${i}`, 'clicks', 2)),
    ...Array.from({ length: 5 }, (_, i) => outcome(`off-${i}`, 'revenue', 100, 'off')),
    outcome('on-0', 'rev', 1000),
  ];
  for (let i = 0; i < items.length; i += 100) {
    const res = await sendBatch(app, token, items.slice(i, i + 100));
    assert.equal(res.json().rejected, 0, res.body);
  }
}

for (const dialect of dialects) {
  describe(`insights differencing on ${dialect}`, () => {
    test('the reproduction: metricKey ["rev","revenue"] minus metricKey "revenue" no longer gives the suppressed rev cell', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      await population(app, s.sdkProd);
      const query = async (filters: Record<string, unknown>, dimensions: string[] = []) => {
        const res = await call(app, 'POST', '/api/v1/insights/query', {
          token: s.user.token,
          payload: {
            appId: s.appId,
            env: 'prod',
            from: iso(T0 - 2 * HOUR),
            to: iso(T0),
            grain: 'hour',
            dimensions,
            measures: ['events', 'outcomes', 'metricSum', 'metricMean', 'subjects'],
            filters,
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      const revAlone = await query({ metricKey: 'rev' });
      assert.equal(revAlone.rows[0].measures.metricSum, null, 'rev is a suppressed cell');

      // Only the `on` variant, so the revenue cell has no small variant part of its own.
      const both = await query({ metricKey: ['rev', 'revenue'], variant: 'on' });
      const revenue = await query({ metricKey: 'revenue', variant: 'on' });
      assert.deepEqual(both.rows[0].measures, revenue.rows[0].measures, 'the multi-valued filter leaves rev out');
      assert.deepEqual(both.rows[0].measures, { events: 25, outcomes: 25, metricSum: 25, metricMean: 1, subjects: 25 });
      assert.equal(both.suppression.excludedParts, 1);
      assert.equal(revenue.suppression.excludedParts, 0);

      // Values whose own cells are shown are all included.
      const two = await query({ metricKey: ['revenue', 'clicks'], variant: 'on' });
      assert.deepEqual(two.rows[0].measures, {
        events: 50,
        outcomes: 50,
        metricSum: 75,
        metricMean: 1.5,
        subjects: 25,
      });
      assert.equal(two.suppression.excludedParts, 0);

      // Grouped by the filtered dimension, each value is its own row and rev's is suppressed.
      const grouped = await query({ metricKey: ['rev', 'revenue'], variant: 'on' }, ['metricKey']);
      assert.deepEqual(
        grouped.rows.map((r: any) => [r.dimensions.metricKey, r.measures.metricSum]),
        [
          ['rev', null],
          ['revenue', 25],
        ],
      );
    });

    test('a total never includes a value whose own cell would be suppressed: total minus the visible cells is zero', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      await population(app, s.sdkProd);
      const query = async (dimensions: string[], filters: Record<string, unknown> = {}) => {
        const res = await call(app, 'POST', '/api/v1/insights/query', {
          token: s.user.token,
          payload: {
            appId: s.appId,
            env: 'prod',
            from: iso(T0 - 2 * HOUR),
            to: iso(T0),
            grain: 'hour',
            dimensions,
            measures: ['events', 'exposures', 'outcomes', 'metricSum'],
            filters,
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      const sumOfVisible = (rows: any[], measure: string) => rows.reduce((n, r) => n + (r.measures[measure] ?? 0), 0);

      // By variant: off (5 subjects) is suppressed.
      const byVariant = await query(['variant']);
      assert.deepEqual(
        byVariant.rows.map((r: any) => [r.dimensions.variant, r.measures.events]),
        [
          ['off', null],
          ['on', 75],
        ],
        'rev (one subject) is left out of on as well',
      );
      const total = await query([]);
      for (const measure of ['events', 'exposures', 'outcomes', 'metricSum']) {
        assert.equal(
          total.rows[0].measures[measure] - sumOfVisible(byVariant.rows, measure),
          0,
          `${measure}: the total minus the visible variants gives nothing away`,
        );
      }
      // By metric: rev (1 subject) is suppressed; the total over metrics of the outcomes leaves it out.
      const byMetric = await query(['metricKey'], { kind: 'outcome', variant: 'on' });
      assert.deepEqual(
        byMetric.rows.map((r: any) => [r.dimensions.metricKey, r.measures.metricSum]),
        [
          ['clicks', 50],
          ['rev', null],
          ['revenue', 25],
        ],
      );
      const outcomes = await query([], { kind: 'outcome', variant: 'on' });
      assert.equal(outcomes.rows[0].measures.metricSum - sumOfVisible(byMetric.rows, 'metricSum'), 0);
      assert.equal(outcomes.rows[0].measures.metricSum, 75);
      // A filter with several values of a dimension the query totals over: the same.
      const variants = await query([], { variant: ['on', 'off'], kind: 'exposure' });
      assert.equal(variants.rows[0].measures.exposures, 25);
      assert.equal(variants.suppression.excludedParts, 1);
    });
  });
}

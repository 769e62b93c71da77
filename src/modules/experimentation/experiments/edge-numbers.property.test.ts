// Properties of numbers, ids and keys at the edge of their type travelling through the data plane
// (issue 18): generated events — finite values up to the bound, values past it, literals that parse
// to Infinity, integers past 2^53, prototype keys, U+0000, ids in any script — go through ingestion →
// rollups → insights → aggregation runs → results. Each item's answer depends on that item alone (a
// bad one never fails its neighbours), nothing answers 5xx, and no stored or answered number is NaN
// or infinite. Power analysis and the pure analysis get the same treatment. Runs are bounded so the
// whole file takes seconds.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeExperiment, type SampleStatistic } from '../../../analysis/index.js';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call } from '../../../../test/helpers/fixtures.js';
import { T0 } from '../../telemetry/ingestion/telemetry.fixtures.js';
import { experimentsClient } from './experiments.test-client.js';
import { testClock } from '../../../../test/helpers/clock.js';

const MAX_METRIC = 1e15;
const MINUTE = 60_000;

/** A JSON number as written on the wire, and whether an event may carry it as a metric value. */
interface Literal {
  text: string;
  valid: boolean;
}

const finiteWithinBound = fc
  .double({ min: -MAX_METRIC, max: MAX_METRIC, noNaN: true })
  .map((n): Literal => ({ text: JSON.stringify(n), valid: true }));
const edgeValues = fc.constantFrom<Literal>(
  { text: '1e15', valid: true },
  { text: '-1e15', valid: true },
  { text: '1e-300', valid: true },
  { text: '5e-324', valid: true },
  { text: '0', valid: true },
  { text: '-0', valid: true },
  { text: '1.0000000000000002e15', valid: false },
  { text: '1.7e308', valid: false },
  { text: '-1.7976931348623157e308', valid: false },
  { text: '1e400', valid: false },
  { text: '-1e400', valid: false },
  { text: `1${'0'.repeat(400)}`, valid: false },
  { text: '-2E+999', valid: false },
);
const beyondBound = fc
  .double({ min: MAX_METRIC * 1.001, max: 1.7e308, noNaN: true })
  .chain((n) => fc.constantFrom(n, -n))
  .map((n): Literal => ({ text: JSON.stringify(n), valid: false }));
const metricValue = fc.oneof(
  { arbitrary: finiteWithinBound, weight: 5 },
  { arbitrary: edgeValues, weight: 3 },
  { arbitrary: beyondBound, weight: 1 },
);
const iterationRevision = fc.oneof(
  fc.integer({ min: 1, max: 2_147_483_647 }).map((n): Literal => ({ text: String(n), valid: true })),
  fc.constantFrom<Literal>(
    { text: '2147483648', valid: false },
    { text: '9007199254740993', valid: false },
    { text: '1e400', valid: false },
    { text: '0', valid: false },
  ),
);
/** Text in any script (emoji, CJK, Cyrillic, Latin-1), without U+0000, which is a defect of its own. */
const text = (max: number) =>
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: max })
    .map((s) => s.replace(/\0/g, ''))
    .filter((s) => s.length > 0);

type Defect = 'none' | 'proto-key' | 'constructor-key' | 'nul' | 'unknown-field';
const defect = fc.constantFrom<Defect>(
  'none',
  'none',
  'none',
  'none',
  'proto-key',
  'constructor-key',
  'nul',
  'unknown-field',
);

interface GeneratedEvent {
  kind: 'exposure' | 'outcome';
  subject: string;
  variant: string;
  value: Literal;
  revision: Literal | null;
  defect: Defect;
  secondsIn: number;
}

const generatedEvent = fc.record<GeneratedEvent>({
  kind: fc.constantFrom('exposure', 'outcome'),
  subject: text(24),
  variant: fc.constantFrom('on', 'off', 'вариант', '変種', '🧪'),
  value: metricValue,
  revision: fc.option(iterationRevision, { nil: null }),
  defect,
  secondsIn: fc.integer({ min: 0, max: 3599 }),
});

/** The event's JSON text (raw number literals, which JSON.stringify cannot write), and whether it is valid. */
function eventText(e: GeneratedEvent, id: string, hourStart: number): { json: string; valid: boolean } {
  const fields: string[] = [
    `"id":${JSON.stringify(id)}`,
    `"kind":"${e.kind}"`,
    `"timestamp":"${new Date(hourStart + e.secondsIn * 1000).toISOString()}"`,
    `"targetingKey":${JSON.stringify(e.subject)}`,
    `"flagKey":"shown"`,
    `"variant":${JSON.stringify(e.variant)}`,
  ];
  let valid = true;
  if (e.kind === 'outcome') {
    fields.push('"metricKey":"revenue"', `"metricValue":${e.value.text}`);
    valid &&= e.value.valid;
  }
  if (e.revision) {
    fields.push(`"iterationRevision":${e.revision.text}`);
    valid &&= e.revision.valid;
  }
  switch (e.defect) {
    case 'proto-key':
      fields.push('"attributes":{"plan":"pro","__proto__":{"admin":true}}');
      valid = false;
      break;
    case 'constructor-key':
      fields.push('"attributes":{"constructor":{"prototype":{"admin":true}}}');
      valid = false;
      break;
    case 'nul':
      fields.push('"reason":"SPLIT"', '"attributes":{"note":"a\\u0000b"}');
      valid = false;
      break;
    case 'unknown-field':
      fields.push('"colour":"red"');
      valid = false;
      break;
    case 'none':
      break;
  }
  return { json: `{${fields.join(',')}}`, valid };
}

/** Every number anywhere in a parsed JSON value. */
function numbersIn(value: unknown, out: number[] = []): number[] {
  if (typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const v of value) numbersIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) numbersIn(v, out);
  return out;
}

function assertNoServerError(res: { statusCode: number; body: string }, what: string) {
  assert.ok(res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
}

for (const dialect of dialects) {
  describe(`numbers at the edge of their type through the data plane on ${dialect}`, () => {
    test('ingestion → rollups → insights: each item answered on its own, nothing stored or answered is not finite', async (t) => {
      const clock = testClock(T0);
      const { app, database } = await buildTestApp(t, {
        dialect,
        now: clock.now,
        config: { telemetryEventsPerSecond: 1_000_000 },
      });
      const db = database.handle.db;
      const c = await experimentsClient(app);
      await call(app, 'PATCH', '/api/v1/flags', {
        token: c.token,
        payload: { appId: c.appId, env: 'dev', key: 'shown', type: 'bool', value: false },
      });
      const hourStart = Math.floor(T0 / 3_600_000) * 3_600_000 - 3_600_000;
      let run = 0;
      let storedValid = 0;

      await fc.assert(
        fc.asyncProperty(fc.array(generatedEvent, { minLength: 1, maxLength: 25 }), async (events) => {
          run++;
          const items = events.map((e, i) => eventText(e, `r${run}-${i}-${e.subject}`, hourStart));
          const res = await app.inject({
            method: 'POST',
            url: '/api/v1/events/batch',
            headers: { authorization: `Bearer ${c.sdk}`, 'content-type': 'application/json' },
            payload: `{"schemaVersion":1,"events":[${items.map((i) => i.json).join(',')}]}`,
          });
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json();
          assert.equal(body.results.length, items.length);
          items.forEach((item, i) => {
            const r = body.results[i];
            assert.equal(r.index, i);
            if (item.valid) assert.equal(r.status, 'accepted', `${item.json} → ${JSON.stringify(r)}`);
            else
              assert.deepEqual(
                [r.status, r.code],
                ['permanent-error', 'validation_error'],
                `${item.json} → ${JSON.stringify(r)}`,
              );
          });
          storedValid += items.filter((i) => i.valid).length;
        }),
        { numRuns: 20 },
      );

      // Storage: every valid event and nothing else; every rollup sum finite.
      const stored = await db
        .selectFrom('telemetry_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.n), storedValid);
      const rollups = await db
        .selectFrom('telemetry_rollups')
        .select(['metric_sum', 'metric_sum_sq', 'events', 'metric_count'])
        .execute();
      assert.ok(rollups.length > 0);
      for (const r of rollups)
        assert.ok(
          [r.metric_sum, r.metric_sum_sq, r.events, r.metric_count].every((x) => Number.isFinite(Number(x))),
          JSON.stringify(r),
        );

      // Insights over all of it, every measure and format: answered, and every number finite.
      const window = {
        appId: c.appId,
        env: 'dev',
        from: new Date(hourStart).toISOString(),
        to: new Date(T0).toISOString(),
      };
      for (const format of ['json', 'csv', 'ndjson'] as const) {
        const res = await call(app, 'POST', '/api/v1/insights/query', {
          token: c.token,
          payload: {
            ...window,
            grain: 'hour',
            dimensions: ['variant', 'kind'],
            measures: ['events', 'subjects', 'outcomes', 'metricSum', 'metricMean'],
            format,
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.doesNotMatch(res.body, /Infinity|NaN/);
        if (format === 'json') {
          const rows = res.json().rows as { measures: Record<string, number | null> }[];
          for (const row of rows) {
            assert.ok(numbersIn(row.measures).every(Number.isFinite));
            if (row.measures.subjects !== null)
              assert.ok(row.measures.subjects! <= row.measures.events!, JSON.stringify(row));
          }
        }
      }
      const listed = await call(app, 'POST', '/api/v1/insights/events', {
        token: c.token,
        payload: { ...window, kinds: ['outcome'], limit: 100 },
      });
      assert.equal(listed.statusCode, 200, listed.body);
      assert.ok(numbersIn(listed.json()).every(Number.isFinite));
    });

    test('aggregation runs and results over extreme accepted values: every number finite, no variant silently zero', async (t) => {
      const clock = testClock(T0);
      // In-thread writes: the writer thread (ingestion above goes through it) takes seconds to start under tsx.
      const { app } = await buildTestApp(t, {
        dialect,
        now: clock.now,
        config: { telemetryEventsPerSecond: 1_000_000, telemetryWriter: 'inline' },
      });
      const arm = fc.array(
        finiteWithinBound.map((l) => Number(l.text)),
        { minLength: 2, maxLength: 12 },
      );
      const extreme = fc.array(fc.constantFrom(1e15, -1e15, 1e-300, 0, 1, 999_999_999_999_999), {
        minLength: 2,
        maxLength: 6,
      });
      const c = await experimentsClient(app);
      const revenue = await c.post('/api/v1/metrics', {
        key: 'revenue',
        name: 'Revenue',
        kind: 'mean',
        eventMetricKey: 'revenue',
        direction: 'increase',
      });
      const revenueId = revenue.json().metric.id as string;
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.oneof(arm, extreme), fc.oneof(arm, extreme), async (control, treatment) => {
          // A flag of its own per run: a flag is in one running experiment at a time.
          const flagKey = `checkout-${++run}`;
          const flag = await call(app, 'PATCH', '/api/v1/flags', {
            token: c.token,
            payload: { appId: c.appId, env: 'dev', key: flagKey, type: 'string', value: 'classic' },
          });
          assert.equal(flag.statusCode, 200, flag.body);
          const exp = await c.create({
            flagKey,
            secondaryMetrics: [{ metricId: revenueId, revision: 1 }],
            analysis: {
              alpha: 0.05,
              sequential: true,
              sequentialTuning: 5000,
              cuped: false,
              minimumUnitsPerVariant: 1,
            },
          });
          await c.served(exp.id, 'transition', { to: 'running' });
          const iteration = (await c.get(`/api/v1/experiments/${exp.id}`)).json().experiment.currentIteration;
          const at = clock.now() + MINUTE;
          const events: Record<string, unknown>[] = [];
          for (const [variant, values] of [
            ['control', control],
            ['treatment', treatment],
          ] as const) {
            values.forEach((value, i) => {
              const subject = `${variant}-${i}`;
              events.push({
                id: `x-${exp.id}-${subject}`,
                kind: 'exposure',
                timestamp: new Date(at).toISOString(),
                targetingKey: subject,
                flagKey,
                variant,
                experimentId: exp.id,
                iterationId: iteration.id,
              });
              events.push({
                id: `o-${exp.id}-${subject}`,
                kind: 'outcome',
                timestamp: new Date(at + 1000).toISOString(),
                targetingKey: subject,
                metricKey: 'revenue',
                metricValue: value,
              });
            });
          }
          clock.advance(2 * MINUTE);
          const sent = await call(app, 'POST', '/api/v1/events/batch', {
            token: c.sdk,
            payload: { schemaVersion: 1, events },
          });
          assert.equal(sent.json().accepted, events.length, sent.body);
          const path = `/api/v1/experiments/${exp.id}/results`;
          const query = { iterationId: iteration.id, iterationRevision: iteration.revision };
          assertNoServerError(await c.get(path, query), 'first read');
          await app.jobs.drain();
          const res = await c.get(path, query);
          assert.equal(res.statusCode, 200, res.body);
          const results = res.json();
          assert.ok(numbersIn(results).every(Number.isFinite));
          const [a, b] = results.aggregate.variants;
          for (const [v, values] of [
            [a, control],
            [b, treatment],
          ] as const) {
            const m = v.metrics[revenueId];
            assert.equal(m.n, values.length);
            assert.equal(typeof m.mean, 'number');
            const expected = values.reduce((s, x) => s + x, 0) / values.length;
            assert.ok(
              Math.abs(m.mean - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
              `mean ${m.mean} ≈ ${expected}`,
            );
          }
          for (const comparison of [...results.inference.fixedHorizon, ...results.inference.sequential]) {
            for (const scale of ['absolute', 'relative'] as const) {
              if (comparison[scale] === null) assert.ok(comparison.unavailable, JSON.stringify(comparison));
            }
          }
          clock.advance(MINUTE);
        }),
        { numRuns: 4 },
      );
    });

    test('power analysis: any input within the schema is 200 with exact, finite numbers or 400 with a reason, never 5xx', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await experimentsClient(app);
      const magnitude = fc.oneof(
        fc.double({ min: 1e-300, max: 1e15, noNaN: true }),
        fc.constantFrom(1e-200, 1e-12, 1, 1e15),
      );
      const input = fc
        .record({
          kind: fc.constantFrom('mean', 'count', 'proportion'),
          mean: fc.oneof(
            magnitude,
            magnitude.map((x) => -x),
            fc.double({ min: 0, max: 1, noNaN: true }),
          ),
          variance: fc.option(fc.oneof(fc.double({ min: 0, max: 1e30, noNaN: true }), fc.constantFrom(1e-300, 0.25)), {
            nil: undefined,
          }),
          mde: fc.oneof(fc.double({ min: 1e-300, max: 1000, noNaN: true }), fc.constantFrom(1e-200, 0.01, 0.05, 1000)),
          unitsPerDay: fc.oneof(fc.double({ min: 1e-300, max: 1e15, noNaN: true }), fc.constantFrom(1, 1e4)),
          plannedUnits: fc.option(fc.double({ min: 1, max: 1e15, noNaN: true }), { nil: undefined }),
          sequential: fc.boolean(),
          variants: fc.integer({ min: 2, max: 10 }),
        })
        .filter((i) => i.mde > 0 && i.unitsPerDay > 0);
      await fc.assert(
        fc.asyncProperty(input, async (i) => {
          const res = await c.post('/api/v1/experiments/power-analysis', {
            metric: { kind: i.kind, mean: i.mean, ...(i.variance !== undefined ? { variance: i.variance } : {}) },
            mde: i.mde,
            unitsPerDay: i.unitsPerDay,
            variants: i.variants,
            sequential: i.sequential,
            ...(i.plannedUnits !== undefined ? { plannedUnits: i.plannedUnits } : {}),
          });
          assertNoServerError(res, JSON.stringify(i));
          if (res.statusCode === 400) {
            assert.equal(res.json().error.code, 'validation_error');
            assert.ok(res.json().error.details.length > 0);
            return;
          }
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json();
          assert.ok(numbersIn(body).every(Number.isFinite));
          assert.equal(body.readiness, 'ready');
          for (const units of [
            body.requiredUnits.perVariant,
            body.requiredUnits.total,
            ...body.sensitivity.map((r: any) => r.requiredUnits),
          ]) {
            assert.ok(Number.isSafeInteger(units) && units <= 1e15, `${units}`);
          }
          assert.ok(Number.isSafeInteger(body.durationDays));
          if (i.kind === 'proportion') assert.equal(body.assumptions.variance, i.mean * (1 - i.mean));
        }),
        { numRuns: 50 },
      );
    });
  });
}

describe('descriptive-v1 over any accepted values', () => {
  test('the whole analysis of generated arms holds finite numbers only', () => {
    const value = fc.oneof(
      fc.double({ min: -MAX_METRIC, max: MAX_METRIC, noNaN: true }),
      fc.constantFrom(MAX_METRIC, -MAX_METRIC, 1e-300, 0),
    );
    const statistic = fc.array(value, { minLength: 0, maxLength: 20 }).map((values): SampleStatistic => ({
      kind: 'mean',
      n: values.length,
      sum: values.reduce((s, x) => s + x, 0),
      sumSquares: values.reduce((s, x) => s + x * x, 0),
    }));
    fc.assert(
      fc.property(statistic, statistic, fc.boolean(), (control, treatment, sequential) => {
        const result = analyzeExperiment({
          variants: [
            { key: 'control', weight: 50, units: control.n, metrics: { m: control } },
            { key: 'treatment', weight: 50, units: treatment.n, metrics: { m: treatment } },
          ],
          primaryMetricId: 'm',
          alpha: 0.05,
          sequential: sequential ? { tuning: 5000 } : null,
          minimumUnitsPerVariant: 1,
          multipleExposures: 0,
        });
        assert.ok(numbersIn(result).every(Number.isFinite), JSON.stringify(result));
      }),
      { numRuns: 500 },
    );
  });
});

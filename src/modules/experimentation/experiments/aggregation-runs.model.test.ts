// The rules of aggregation runs without a database: when the scheduler queues a run and why, and
// what a results document makes of a pinned aggregate (aggregation-runs.test.ts covers them end to end).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AGGREGATION_INTERVAL_MS,
  bounded,
  MAX_DIAGNOSTICS,
  pinnedAggregateOf,
  requestHashOf,
  resultsOf,
  scheduleDecision,
  type StoredRun,
} from './aggregation-runs.model.js';
import { sampleStatistic } from '../../../analysis/index.js';
import { DEFAULT_ANALYSIS } from './experiments.model.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function run(fields: Partial<StoredRun> = {}): StoredRun {
  return {
    id: 'run_1',
    envId: 'env_1',
    experimentId: 'exp_1',
    iterationId: 'itr_1',
    iterationRevision: 1,
    state: 'succeeded',
    cause: 'schedule',
    watermark: { receivedAt: T0, eventId: 'e1' },
    queuedAt: iso(T0),
    startedAt: iso(T0),
    finishedAt: iso(T0),
    diagnostics: [],
    remediation: null,
    aggregate: null,
    requestHash: null,
    ...fields,
  };
}

describe('scheduleDecision', () => {
  const decide = (
    newest: StoredRun | undefined,
    fields: { revision?: number; watermark?: number | null; now?: number; hadRuns?: boolean } = {},
  ) =>
    scheduleDecision({
      newest,
      iterationRevision: fields.revision ?? 1,
      hadRuns: fields.hadRuns ?? false,
      now: fields.now ?? T0 + AGGREGATION_INTERVAL_MS,
      watermark: fields.watermark === null ? null : { receivedAt: fields.watermark ?? T0 + 1, eventId: 'e2' },
    });

  test('an iteration without runs is queued: a schedule, or an iteration change when the experiment had runs', () => {
    assert.equal(decide(undefined), 'schedule');
    assert.equal(decide(undefined, { hadRuns: true }), 'iteration_change');
  });

  test('a run in flight waits', () => {
    assert.equal(decide(run({ state: 'queued' }), { revision: 2 }), null);
    assert.equal(decide(run({ state: 'running' }), { revision: 2 }), null);
  });

  test('a new revision is queued at once, as an iteration change', () => {
    assert.equal(decide(run(), { revision: 2, now: T0 + 1 }), 'iteration_change');
  });

  test('new events are queued at most once per interval', () => {
    assert.equal(decide(run(), { now: T0 + AGGREGATION_INTERVAL_MS - 1 }), null);
    assert.equal(decide(run(), { now: T0 + AGGREGATION_INTERVAL_MS }), 'schedule');
  });

  test('no new events, no run', () => {
    assert.equal(decide(run(), { watermark: T0 }), null);
    assert.equal(decide(run(), { watermark: null }), null);
    assert.equal(decide(run({ watermark: null }), { watermark: T0 }), 'schedule');
  });
});

describe('results rules', () => {
  test('diagnostics are bounded, the last one counting the rest', () => {
    const many = Array.from({ length: MAX_DIAGNOSTICS + 5 }, (_, i) => `d${i}`);
    const kept = bounded(many);
    assert.equal(kept.length, MAX_DIAGNOSTICS);
    assert.equal(kept.at(-1), '6 more diagnostic(s) omitted.');
    assert.deepEqual(bounded(['a']), ['a']);
  });

  test('the request hash tells a replay from a different request with the same key', () => {
    const body = {
      appId: 'a',
      env: 'dev',
      iterationId: 'i',
      iterationRevision: 1,
      analysisEngineVersion: 'descriptive-v1',
      idempotencyKey: 'k-12345678',
      confirm: true,
    };
    assert.equal(requestHashOf('exp', body), requestHashOf('exp', { ...body, idempotencyKey: 'other-key' }));
    assert.notEqual(requestHashOf('exp', body), requestHashOf('exp', { ...body, iterationRevision: 2 }));
  });

  test('a pinned aggregate keeps only the metrics the run found', () => {
    const definition = {
      primaryMetric: { metricId: 'm1', revision: 1 },
      guardrailMetrics: [
        { metricId: 'g1', revision: 1, maxRelativeDegradation: 0.05 },
        { metricId: 'gone', revision: 1, maxRelativeDegradation: 0.1 },
      ],
    };
    const pinned = pinnedAggregateOf(
      definition,
      { variants: [], multipleExposures: 0 },
      new Set(['m1', 'g1']),
      (id) => id !== 'g1',
    );
    assert.equal(pinned.primaryMetricId, 'm1');
    assert.deepEqual(pinned.guardrails, [{ metricId: 'g1', higherIsBetter: false, maxRelativeDegradation: 0.05 }]);
    assert.equal(
      pinnedAggregateOf(definition, { variants: [], multipleExposures: 0 }, new Set(), () => true).primaryMetricId,
      null,
    );
  });

  test('a metric whose pinned sums are not finite is left out with a diagnostic, and freshness counts from the watermark', () => {
    const stat = (value: number) =>
      sampleStatistic(
        'mean',
        Array.from({ length: 10 }, () => value),
      );
    // What a pinned sum that overflowed reads back as: JSON wrote Infinity as null.
    const overflowed = { ...stat(1), sum: null as unknown as number };
    const aggregate = {
      variants: [
        { key: 'control', weight: 50, units: 10, metrics: { ok: stat(1), broken: overflowed } },
        { key: 'treatment', weight: 50, units: 10, metrics: { ok: stat(2), broken: stat(1) } },
      ],
      multipleExposures: 0,
      primaryMetricId: 'ok',
      guardrails: [],
    };
    const finished = run({ aggregate, finishedAt: iso(T0 + 5000) });
    const results = resultsOf(
      { id: 'exp_1', definition: { analysis: DEFAULT_ANALYSIS } },
      { ...finished, aggregate, finishedAt: iso(T0 + 5000) },
      T0 + 65_000,
    );
    assert.ok(
      results.diagnostics.includes(
        'Metric broken is left out: its pinned sums are not finite numbers. Recompute the results.',
      ),
      results.diagnostics.join('\n'),
    );
    assert.ok(results.aggregate.variants.every((v) => !('broken' in v.metrics)));
    assert.equal(results.freshness.lagSeconds, 65);
    assert.equal(results.aggregate.pinnedAt, iso(T0 + 5000));
  });
});

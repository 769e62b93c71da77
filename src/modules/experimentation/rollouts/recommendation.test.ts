// The recommendation rules of issue 12 on hand-built results documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExperimentResults } from '../experiments/index.js';
import { recommend } from './recommendation.js';
import type { RolloutPlan } from './rollouts.model.js';

const NOW = Date.UTC(2026, 10, 23, 12);
const plan: RolloutPlan = {
  id: 'rop_1',
  appId: 'app_1',
  env: 'prod',
  experimentId: 'exp_1',
  flagKey: 'checkout',
  iterationId: 'itr_1',
  planVersion: 3,
  state: 'active',
  variant: 'treatment',
  steps: [
    { percentage: 10, minDurationHours: 0 },
    { percentage: 100, minDurationHours: 0 },
  ],
  guardrails: [{ metricId: 'met_err', revision: 1, maxRelativeDegradation: 0.05 }],
  minimumUnitsPerStep: 100,
  currentStep: 0,
  stepStartedAt: new Date(NOW - 3_600_000).toISOString(),
  baseVersion: 4,
  recommendation: null,
  history: [],
  createdAt: '',
  updatedAt: '',
  createdBy: { type: 'system' },
};

function results(
  fields: {
    relativeCi?: [number, number];
    units?: [number, number];
    srm?: 'healthy' | 'unhealthy';
    pinnedAgoMs?: number;
    iterationId?: string;
  } = {},
): ExperimentResults {
  const [lo, hi] = fields.relativeCi ?? [-0.02, 0.03];
  const effect = { effect: (lo + hi) / 2, standardError: 0.01, ci: [lo, hi] as [number, number], pValue: 0.5 };
  const [c, t] = fields.units ?? [500, 500];
  return {
    experimentId: 'exp_1',
    iterationId: fields.iterationId ?? 'itr_1',
    iterationRevision: 1,
    analysisEngineVersion: 'descriptive-v1',
    aggregate: {
      runId: 'run_1',
      pinnedAt: new Date(NOW - (fields.pinnedAgoMs ?? 60_000)).toISOString(),
      watermark: { receivedAt: NOW - 120_000, eventId: 'e1' },
      variants: [
        { key: 'control', units: c, metrics: {} },
        { key: 'treatment', units: t, metrics: {} },
      ],
    },
    inference: { fixedHorizon: [{ metricId: 'met_err', variant: 'treatment', absolute: effect, relative: effect }] },
    analysisDecision: 'continue',
    health: {
      srm: {
        chiSquare: 1,
        degreesOfFreedom: 1,
        pValue: fields.srm === 'unhealthy' ? 1e-6 : 0.3,
        status: fields.srm ?? 'healthy',
      },
      multipleExposures: { count: 0, rate: 0, status: 'healthy' },
      guardrails: [],
    },
    freshness: { computedAt: new Date(NOW).toISOString(), lagSeconds: 60 },
    diagnostics: [],
  };
}

const run = (
  r: ExperimentResults | null,
  overrides: Partial<RolloutPlan> = {},
  iteration: { id: string; revision: number } | null = { id: 'itr_1', revision: 1 },
) => recommend({ plan: { ...plan, ...overrides }, iteration, results: r, higherIsBetter: () => false, now: NOW });

test('proceed on fresh, healthy data within the guardrail; the digest names plan version and content', () => {
  const a = run(results());
  assert.equal(a.kind, 'proceed');
  assert.equal(a.planVersion, 3);
  assert.match(a.digest, /^[0-9a-f]{64}$/);
  assert.equal(run(results()).digest, a.digest, 'deterministic');
  assert.notEqual(run(results(), { planVersion: 4 }).digest, a.digest);
});

test('recommend_rollback when the interval lies wholly beyond the tolerated degradation in the bad direction', () => {
  // Errors (lower is better): +6 % to +9 % is wholly beyond +5 %.
  assert.equal(run(results({ relativeCi: [0.06, 0.09] })).kind, 'recommend_rollback');
  // Straddling the bound is not enough.
  assert.equal(run(results({ relativeCi: [0.04, 0.09] })).kind, 'proceed');
  // Improvements never trigger it.
  assert.equal(run(results({ relativeCi: [-0.09, -0.06] })).kind, 'proceed');
});

test('recommend_pause on an unhealthy split; a rollback wins over a pause', () => {
  assert.equal(run(results({ srm: 'unhealthy' })).kind, 'recommend_pause');
  assert.equal(run(results({ srm: 'unhealthy', relativeCi: [0.06, 0.09] })).kind, 'recommend_rollback');
});

test('stale: no aggregate, an aggregate older than 2 hours, a step below its minimum units or duration', () => {
  assert.equal(run(null).kind, 'stale');
  assert.equal(run(results({ pinnedAgoMs: 2 * 3_600_000 + 1 })).kind, 'stale');
  assert.equal(run(results({ pinnedAgoMs: 2 * 3_600_000 - 1000 })).kind, 'proceed');
  assert.equal(run(results({ units: [500, 99] })).kind, 'stale');
  assert.equal(
    run(results(), {
      steps: [
        { percentage: 10, minDurationHours: 2 },
        { percentage: 100, minDurationHours: 0 },
      ],
    }).kind,
    'stale',
  );
});

test("invalid_data when the aggregate or the current iteration is not the plan's", () => {
  assert.equal(run(results({ iterationId: 'itr_2' })).kind, 'invalid_data');
  assert.equal(run(results(), {}, { id: 'itr_2', revision: 1 }).kind, 'invalid_data');
  assert.equal(run(results(), {}, null).kind, 'invalid_data');
});

test('an experiment guardrail breached for the rolled variant (analysisDecision guardrail_violation) recommends a rollback, never proceed', () => {
  const violated = (variant: string): ExperimentResults => {
    const r = results();
    return {
      ...r,
      analysisDecision: 'guardrail_violation',
      health: {
        ...r.health,
        guardrails: [
          { metricId: 'met_latency', variant, ci: [1.2, 2.4], maxRelativeDegradation: 0.05, status: 'breached' },
        ],
      },
    };
  };
  const rolled = run(violated('treatment'));
  assert.equal(rolled.kind, 'recommend_rollback');
  assert.match(rolled.reasons.join(' '), /Experiment guardrail met_latency: .*\[1\.2, 2\.4\].*guardrail_violation/);
  assert.deepEqual(rolled.evidence.experimentGuardrails, [
    { metricId: 'met_latency', ci: [1.2, 2.4], maxRelativeDegradation: 0.05, status: 'breached' },
  ]);
  // A breach in another treatment is not this plan's variant.
  assert.equal(run(violated('other-arm')).kind, 'proceed');
  // Fresh data come first: an old aggregate is stale, not a rollback.
  const old = { ...violated('treatment'), aggregate: { ...results({ pinnedAgoMs: 3 * 3_600_000 }).aggregate } };
  assert.equal(run(old).kind, 'stale');
  // Without an experiment breach the evidence is as before (digests of existing plans unchanged).
  assert.equal(run(results()).evidence.experimentGuardrails, undefined);
});

// analysisDecision with guardrails: a guardrail whose interval shows degradation beyond its threshold
// makes the decision guardrail_violation, whatever the primary metric, the units or health say.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analysisDecision, analyzeExperiment, type ComparisonResult, type SampleStatistic } from './index.js';

const significant: ComparisonResult = {
  absolute: null,
  relative: { effect: 0.1, standardError: 0.02, ci: [0.06, 0.14], pValue: 0.0001 },
};
const base = {
  minimumUnitsPerVariant: 100,
  unitsPerVariant: [500, 510],
  srm: 'healthy' as const,
  multipleExposures: 'healthy' as const,
};
const proportion = (n: number, sum: number): SampleStatistic => ({ kind: 'proportion', n, sum, sumSquares: sum });

test('a breached guardrail is guardrail_violation before every other value', () => {
  assert.equal(
    analysisDecision({ ...base, primary: [significant], guardrails: ['within', 'breached'] }),
    'guardrail_violation',
  );
  assert.equal(analysisDecision({ ...base, primary: [], guardrails: ['breached'] }), 'guardrail_violation');
  assert.equal(
    analysisDecision({ ...base, unitsPerVariant: [500, 99], primary: [significant], guardrails: ['breached'] }),
    'guardrail_violation',
  );
  assert.equal(
    analysisDecision({ ...base, srm: 'unhealthy', primary: [significant], guardrails: ['breached'] }),
    'guardrail_violation',
  );
  // Within or unknown guardrails change nothing.
  assert.equal(
    analysisDecision({ ...base, primary: [significant], guardrails: ['within', 'unknown'] }),
    'evidence_qualified',
  );
  assert.equal(
    analysisDecision({ ...base, unitsPerVariant: [500, 99], primary: [significant], guardrails: ['unknown'] }),
    'not_ready',
  );
  // One variant is never comparable.
  assert.equal(
    analysisDecision({ ...base, unitsPerVariant: [500], primary: [], guardrails: ['breached'] }),
    'not_ready',
  );
});

test('analyzeExperiment: conversion up significantly while errors rise by about 180 % is guardrail_violation, with the guardrail in health', () => {
  const variants = [
    { key: 'control', weight: 1, units: 5000, metrics: { conv: proportion(5000, 500), errors: proportion(5000, 100) } },
    {
      key: 'treatment',
      weight: 1,
      units: 5000,
      metrics: { conv: proportion(5000, 650), errors: proportion(5000, 280) },
    },
  ];
  const input = { variants, primaryMetricId: 'conv', alpha: 0.05, minimumUnitsPerVariant: 100, multipleExposures: 0 };
  // Without the guardrail the primary metric qualifies.
  assert.equal(analyzeExperiment(input).analysisDecision, 'evidence_qualified');
  assert.deepEqual(analyzeExperiment(input).health.guardrails, []);
  const guarded = analyzeExperiment({
    ...input,
    guardrails: [{ metricId: 'errors', higherIsBetter: false, maxRelativeDegradation: 0.05 }],
  });
  assert.equal(guarded.analysisDecision, 'guardrail_violation');
  const [errors] = guarded.health.guardrails;
  assert.equal(errors!.metricId, 'errors');
  assert.equal(errors!.variant, 'treatment');
  assert.equal(errors!.status, 'breached');
  assert.ok(errors!.ci![0] > 0.05 && errors!.ci![0] < 1.8 && errors!.ci![1] > 1.8, `interval ${errors!.ci}`);
  // Tolerating a tripling, the same data are within the guardrail again.
  const tolerant = analyzeExperiment({
    ...input,
    guardrails: [{ metricId: 'errors', higherIsBetter: false, maxRelativeDegradation: 3 }],
  });
  assert.equal(tolerant.analysisDecision, 'evidence_qualified');
  assert.equal(tolerant.health.guardrails[0]!.status, 'within');
  // A guardrail metric the variants lack is unknown, not breached.
  assert.equal(
    analyzeExperiment({
      ...input,
      guardrails: [{ metricId: 'latency', higherIsBetter: false, maxRelativeDegradation: 0.05 }],
    }).health.guardrails[0]!.status,
    'unknown',
  );
});

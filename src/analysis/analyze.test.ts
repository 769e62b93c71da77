// descriptive-v1's decision rules and the whole analysis of an experiment (analyzeExperiment), and
// the merge of partial aggregates it relies on.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  analysisDecision,
  analyzeExperiment,
  fixedHorizonComparison,
  guardrailStatus,
  mergeStatistics,
  ratioStatistic,
  sampleStatistic,
  type ComparisonResult,
} from './index.js';
import { A, B, mean, near, proportion } from './analysis.fixtures.js';

describe('analysis: decision and the whole analysis', () => {
  const significant: ComparisonResult = {
    absolute: null,
    relative: { effect: 0.1, standardError: 0.02, ci: [0.06, 0.14], pValue: 0.0001 },
  };
  const flat: ComparisonResult = {
    absolute: null,
    relative: { effect: 0.01, standardError: 0.02, ci: [-0.03, 0.05], pValue: 0.6 },
  };

  test('analysisDecision rules', () => {
    const base = {
      minimumUnitsPerVariant: 100,
      unitsPerVariant: [500, 510],
      srm: 'healthy' as const,
      multipleExposures: 'healthy' as const,
    };
    assert.equal(analysisDecision({ ...base, primary: [significant] }), 'evidence_qualified');
    assert.equal(analysisDecision({ ...base, primary: [flat] }), 'continue');
    assert.equal(analysisDecision({ ...base, primary: [flat, significant] }), 'evidence_qualified', 'any treatment');
    assert.equal(analysisDecision({ ...base, unitsPerVariant: [500, 99], primary: [significant] }), 'not_ready');
    assert.equal(analysisDecision({ ...base, srm: 'unhealthy', primary: [significant] }), 'not_ready');
    assert.equal(analysisDecision({ ...base, multipleExposures: 'unhealthy', primary: [significant] }), 'not_ready');
    assert.equal(
      analysisDecision({ ...base, primary: [{ absolute: null, relative: null, unavailable: 'zero_variance' }] }),
      'continue',
    );
    assert.equal(analysisDecision({ ...base, primary: [] }), 'continue');
  });

  test('guardrails are breached only when the whole interval is past the allowed degradation', () => {
    const worse: ComparisonResult = {
      absolute: null,
      relative: { effect: -0.2, standardError: 0.02, ci: [-0.24, -0.16], pValue: 0 },
    };
    assert.equal(guardrailStatus(worse, 0.05, true), 'breached');
    assert.equal(guardrailStatus(worse, 0.2, true), 'within');
    assert.equal(guardrailStatus(worse, 0.05, false), 'within');
    assert.equal(guardrailStatus(significant, 0.05, false), 'breached');
    assert.equal(guardrailStatus({ absolute: null, relative: null }, 0.05, true), 'unknown');
  });

  test('analyzeExperiment compares each arm with control and uses the sequential interval when sequential', () => {
    const variants = [
      { key: 'control', weight: 50, units: 3407, metrics: { m1: A, conv: proportion(3407, 300) } },
      { key: 'b', weight: 25, units: 3461, metrics: { m1: B, conv: proportion(3461, 330) } },
      { key: 'c', weight: 25, units: 3400, metrics: { m1: mean(3400, 2400, 60000), conv: proportion(3400, 290) } },
    ];
    const fixed = analyzeExperiment({
      variants,
      primaryMetricId: 'm1',
      alpha: 0.05,
      minimumUnitsPerVariant: 100,
      multipleExposures: 3,
    });
    assert.equal(fixed.analysisEngineVersion, 'descriptive-v1');
    assert.deepEqual(
      fixed.inference.fixedHorizon.map((c) => `${c.variant}/${c.metricId}`),
      ['b/m1', 'b/conv', 'c/m1', 'c/conv'],
    );
    assert.equal(fixed.inference.sequential, undefined);
    assert.deepEqual(fixed.inference.fixedHorizon[0], {
      metricId: 'm1',
      variant: 'b',
      ...fixedHorizonComparison(A, B, 0.05),
    });
    // Weights 50/25/25 against units 3407/3461/3400: a gross mismatch.
    assert.equal(fixed.health.srm.status, 'unhealthy');
    assert.equal(fixed.analysisDecision, 'not_ready');
    const balanced = variants.map((v) => ({ ...v, weight: 1 }));
    const sequential = analyzeExperiment({
      variants: balanced,
      primaryMetricId: 'm1',
      alpha: 0.05,
      sequential: { tuning: 1000 },
      minimumUnitsPerVariant: 100,
      multipleExposures: 0,
    });
    assert.equal(sequential.health.srm.status, 'healthy');
    assert.equal(sequential.inference.sequential!.length, 4);
    // c's relative effect on m1 excludes 0 at a fixed horizon, but not in the wider confidence sequence.
    const cFixed = fixedHorizonComparison(A, mean(3400, 2400, 60000), 0.05).relative!;
    const cSequential = sequential.inference.sequential!.find(
      (x) => x.variant === 'c' && x.metricId === 'm1',
    )!.relative!;
    assert.ok(cFixed.ci[0] > 0 && cSequential.ci[0] < 0);
    assert.equal(sequential.analysisDecision, 'continue');
    const fixedBalanced = analyzeExperiment({
      variants: balanced,
      primaryMetricId: 'm1',
      alpha: 0.05,
      minimumUnitsPerVariant: 100,
      multipleExposures: 0,
    });
    assert.equal(fixedBalanced.analysisDecision, 'evidence_qualified');
    assert.equal(
      analyzeExperiment({
        variants: balanced,
        primaryMetricId: 'conv',
        alpha: 0.05,
        minimumUnitsPerVariant: 100,
        multipleExposures: 0,
      }).analysisDecision,
      'continue',
    );
    assert.equal(
      analyzeExperiment({
        variants: balanced,
        primaryMetricId: 'm1',
        alpha: 0.05,
        minimumUnitsPerVariant: 3405,
        multipleExposures: 0,
      }).analysisDecision,
      'not_ready',
    );
    near(sequential.variants[0]!.metrics.m1!.mean, 1396.87 / 3407, 12, 'control mean');
  });

  test('partial aggregates merge into the same statistics as one pass', () => {
    const left = sampleStatistic('mean', [1, 2, 3]);
    const right = sampleStatistic('mean', [4, 5]);
    assert.deepEqual(mergeStatistics(left, right), sampleStatistic('mean', [1, 2, 3, 4, 5]));
    const r1 = ratioStatistic([{ numerator: 1, denominator: 2 }]);
    const r2 = ratioStatistic([{ numerator: 3, denominator: 1 }]);
    assert.deepEqual(
      mergeStatistics(r1, r2),
      ratioStatistic([
        { numerator: 1, denominator: 2 },
        { numerator: 3, denominator: 1 },
      ]),
    );
    assert.throws(() => mergeStatistics(left as never, r1 as never));
  });
});

// descriptive-v1 against GrowthBook's published vectors (MIT; growthbook/growthbook at commit
// 8f1db44569). Each vector names its source file and line. Values are compared to 5 decimals unless
// the source states more.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  analysisDecision,
  analyzeExperiment,
  chiSquareSurvival,
  cupedRatioStatistic,
  cupedStatistic,
  describeStatistic,
  differenceVariance,
  fixedHorizonComparison,
  guardrailStatus,
  mdeAt,
  mergeStatistics,
  multipleExposures,
  powerAnalysis,
  powerAt,
  ratioStatistic,
  requiredUnitsPerVariant,
  sampleRatioMismatch,
  sampleStatistic,
  sequentialComparison,
  type ComparisonResult,
  type CupedRatioStatistic,
  type CupedStatistic,
  type EffectResult,
  type RatioStatistic,
  type SampleStatistic,
} from './index.js';

const GBSTATS_TESTS = 'packages/stats/tests/frequentist/test_tests.py';
const GBSTATS_E2E = 'packages/stats/tests/test_gbstats.py';
const POWER_TESTS = 'packages/shared/test/power.test.ts';
const SRM_TESTS = 'packages/back-end/test/stats.test.ts';

function near(actual: number, expected: number, decimals = 5, label = '') {
  const tolerance = 0.5 * 10 ** -decimals + 1e-12;
  assert.ok(Math.abs(actual - expected) <= tolerance, `${label}: ${actual} is not ${expected} to ${decimals} decimals`);
}

function effect(
  actual: EffectResult | null,
  expected: { effect: number; ci?: [number, number]; se?: number; p?: number },
  source: string,
  decimals = 5,
) {
  assert.ok(actual, `${source}: effect unavailable`);
  near(actual.effect, expected.effect, decimals, `${source} effect`);
  if (expected.ci) {
    near(actual.ci[0], expected.ci[0], decimals, `${source} ci low`);
    near(actual.ci[1], expected.ci[1], decimals, `${source} ci high`);
  }
  if (expected.se !== undefined) near(actual.standardError, expected.se, decimals, `${source} standard error`);
  if (expected.p !== undefined) near(actual.pValue, expected.p, decimals, `${source} p-value`);
}

const mean = (n: number, sum: number, sumSquares: number): SampleStatistic => ({ kind: 'mean', n, sum, sumSquares });
const proportion = (n: number, sum: number): SampleStatistic => ({ kind: 'proportion', n, sum, sumSquares: sum });
const moments = (n: number, sum: number, sumSquares: number) => ({ n, sum, sumSquares });

// TestTwoSidedTTest.setUp, test_tests.py:59-60
const A = mean(3407, 1396.87, 52377.9767);
const B = mean(3461, 2422.7, 134698.29);

describe('analysis: fixed-horizon Welch t-test (gbstats vectors)', () => {
  test('(1) relative effect of means', () => {
    // test_two_sided_ttest, test_tests.py:64-83
    effect(
      fixedHorizonComparison(A, B, 0.05).relative,
      { effect: 0.70732, ci: [-0.03526, 1.44989], se: 0.37879, p: 0.06191 },
      `${GBSTATS_TESTS}:64`,
    );
  });

  test('(2) absolute effect of means', () => {
    // test_two_sided_ttest_absolute, test_tests.py:85-101
    effect(
      fixedHorizonComparison(A, B, 0.05).absolute,
      { effect: 0.29, ci: [0.04538, 0.53462], se: 0.12478, p: 0.02016 },
      `${GBSTATS_TESTS}:85`,
    );
  });

  test('(3) relative effect of proportions 14/28 vs 16/30', () => {
    // test_two_sided_ttest_binom, test_tests.py:103-121
    effect(
      fixedHorizonComparison(proportion(28, 14), proportion(30, 16), 0.05).relative,
      { effect: 0.06667, ci: [-0.47767, 0.61101], se: 0.2717, p: 0.80707 },
      `${GBSTATS_TESTS}:103`,
    );
  });

  test('a variant with too few units for a variance gives no effect (zero variance)', () => {
    // test_two_sided_ttest_missing_variance, test_tests.py:123-132: n = 2 with these sums has negative variance
    const result = fixedHorizonComparison(mean(2, 1396.87, 52377.9767), B, 0.05);
    assert.equal(result.relative, null);
    assert.equal(result.absolute, null);
    assert.equal(result.unavailable, 'zero_variance');
  });

  test('count metric, frequentist relative effect (gbstats end to end)', () => {
    // test_get_metric_dfs_frequentist, test_gbstats.py:722-745 (rows from QUERY_OUTPUT dimension "one")
    const control = mean(100, 270, 848.79);
    const treatment = mean(120, 300, 869);
    near(describeStatistic(control).mean, 2.7, 9);
    near(describeStatistic(treatment).mean, 2.5, 9);
    effect(
      fixedHorizonComparison(control, treatment, 0.05).relative,
      { effect: -0.074074074, p: 0.145219005 },
      `${GBSTATS_E2E}:722`,
      9,
    );
  });

  test('a single unit in a variant gives no effect', () => {
    // test_get_metric_dfs_zero_val, test_gbstats.py:780-805 (expected 0 and p 1: gbstats' uninformative default)
    const result = fixedHorizonComparison(mean(3, 20, 443), mean(1, 1, 1), 0.05);
    assert.equal(result.relative, null);
    assert.equal(result.unavailable, 'zero_variance');
  });

  test('alpha sets the interval level', () => {
    const at10 = fixedHorizonComparison(A, B, 0.1).relative!;
    const at05 = fixedHorizonComparison(A, B, 0.05).relative!;
    assert.ok(at10.ci[0] > at05.ci[0] && at10.ci[1] < at05.ci[1]);
    assert.equal(at10.pValue, at05.pValue);
    assert.throws(() => fixedHorizonComparison(A, B, 0), RangeError);
  });
});

describe('analysis: ratio metrics (delta method)', () => {
  test('variance of a difference of means, absolute and relative (GrowthBook frequentistVariance)', () => {
    // "delta method variance absolute correct" / "relative correct", power.test.ts:23-33
    near(
      differenceVariance({ variance: 2, mean: 7, n: 4 }, { variance: 0.5, mean: 5, n: 15 }, 'absolute'),
      0.53333,
      5,
      `${POWER_TESTS}:24`,
    );
    near(
      differenceVariance({ variance: 2, mean: 7, n: 4 }, { variance: 0.5, mean: 5, n: 15 }, 'relative'),
      0.00589,
      5,
      `${POWER_TESTS}:30`,
    );
  });

  // RATIO_STATISTICS_DF, test_gbstats.py:195-222
  const control: RatioStatistic = {
    kind: 'ratio',
    n: 100,
    numerator: moments(100, 270, 848.79),
    denominator: moments(100, 510, 810),
    sumProducts: -900,
  };
  const treatment: RatioStatistic = {
    kind: 'ratio',
    n: 120,
    numerator: moments(120, 300, 869),
    denominator: moments(120, 500, 800),
    sumProducts: -905,
  };

  test('relative effect of a ratio metric', () => {
    // test_get_metric_dfs_frequentist_ratio, test_gbstats.py:753-778
    near(describeStatistic(control).mean, 0.529411765, 9);
    near(describeStatistic(treatment).mean, 0.6, 9);
    effect(
      fixedHorizonComparison(control, treatment, 0.05).relative,
      { effect: 0.133333333, p: 0.610663339 },
      `${GBSTATS_E2E}:753`,
      9,
    );
  });

  test('a control ratio with a zero denominator gives no effect', () => {
    // test_get_metric_dfs_ratio_zero_denom, test_gbstats.py:807-834
    const zero: RatioStatistic = { ...control, denominator: moments(100, 0, 0), sumProducts: 0 };
    assert.equal(describeStatistic(zero).mean, 0);
    const result = fixedHorizonComparison(zero, treatment, 0.05);
    assert.equal(result.relative, null);
  });

  test('ratio statistics built from per-subject pairs equal the sums', () => {
    const pairs = [
      { numerator: 3, denominator: 2 },
      { numerator: 0, denominator: 1 },
      { numerator: 5, denominator: 4 },
    ];
    assert.deepEqual(ratioStatistic(pairs), {
      kind: 'ratio',
      n: 3,
      numerator: moments(3, 8, 34),
      denominator: moments(3, 7, 21),
      sumProducts: 26,
    });
  });
});

describe('analysis: CUPED', () => {
  // RA_STATISTICS_DF, test_gbstats.py:330-355 (covariate = pre-exposure value)
  const control: CupedStatistic = {
    kind: 'cuped',
    metric: 'mean',
    n: 3001,
    post: moments(3001, 300, 600),
    pre: moments(3001, 210, 415),
    sumProducts: -20,
  };
  const treatment: CupedStatistic = {
    kind: 'cuped',
    metric: 'mean',
    n: 3000,
    post: moments(3000, 222, 555),
    pre: moments(3000, 120, 405),
    sumProducts: -10,
  };

  test('count metric with CUPED: unadjusted means shown, adjusted relative effect', () => {
    // test_analyze_metric_df_ra, test_gbstats.py:837-870
    near(describeStatistic(control).mean, 0.099966678, 9);
    near(describeStatistic(treatment).mean, 0.074, 9);
    effect(
      fixedHorizonComparison(control, treatment, 0.05).relative,
      { effect: -0.281707154, p: 0.003732549 },
      `${GBSTATS_E2E}:837`,
      9,
    );
  });

  test('proportion metric with CUPED', () => {
    // test_analyze_metric_df_ra_proportion, test_gbstats.py:872-907 (sum of squares dropped: binomial)
    const c: CupedStatistic = {
      ...control,
      metric: 'proportion',
      post: moments(3001, 300, 300),
      pre: moments(3001, 210, 210),
    };
    const t: CupedStatistic = {
      ...treatment,
      metric: 'proportion',
      post: moments(3000, 222, 222),
      pre: moments(3000, 120, 120),
    };
    effect(
      fixedHorizonComparison(c, t, 0.05).relative,
      { effect: -0.31620216, p: 0.000000353 },
      `${GBSTATS_E2E}:872`,
      9,
    );
  });

  test('without pre-exposure variation CUPED reverts to the plain test', () => {
    const flat = (s: CupedStatistic): CupedStatistic => ({
      ...s,
      pre: moments(s.n, s.n, s.n),
      sumProducts: s.post.sum,
    });
    const plain = fixedHorizonComparison(mean(3001, 300, 600), mean(3000, 222, 555), 0.05);
    assert.deepEqual(fixedHorizonComparison(flat(control), flat(treatment), 0.05), plain);
  });

  test('cuped statistics from per-subject pairs', () => {
    assert.deepEqual(
      cupedStatistic('mean', [
        { post: 2, pre: 1 },
        { post: 4, pre: 3 },
      ]),
      { kind: 'cuped', metric: 'mean', n: 2, post: moments(2, 6, 20), pre: moments(2, 4, 10), sumProducts: 14 },
    );
  });
});

describe('analysis: CUPED for ratio metrics', () => {
  // test_two_sided_ttest_test_runs_ratio_ra, test_tests.py:134-195 (also test_sequential_test_runs_ratio_ra, :271-329)
  const control: CupedRatioStatistic = {
    kind: 'cupedRatio',
    n: 100,
    numeratorPost: moments(100, 485.112236689623, 2715.484666118136),
    denominatorPost: moments(100, 679.9093275844917, 4939.424001640236),
    numeratorPre: moments(100, 192.59138069991536, 460.076026390857),
    denominatorPre: moments(100, 290.1398399750233, 920.9461385038898),
    sums: {
      numeratorPostNumeratorPre: 1113.6215759318352,
      denominatorPostDenominatorPre: 2130.9404074446747,
      numeratorPreDenominatorPre: 634.239482353647,
      numeratorPostDenominatorPost: 3602.146836776702,
      numeratorPostDenominatorPre: 1559.2878434944676,
      numeratorPreDenominatorPost: 1460.3181079276983,
    },
  };
  const treatment: CupedRatioStatistic = {
    kind: 'cupedRatio',
    n: 100,
    numeratorPost: moments(100, 514.7757826608777, 2994.897482705013),
    denominatorPost: moments(100, 705.4090874383759, 5291.36604146392),
    numeratorPre: moments(100, 206.94157227402536, 514.2903702246757),
    denominatorPre: moments(100, 302.54389139107326, 994.4506208125663),
    sums: {
      numeratorPostNumeratorPre: 1237.0953021125997,
      denominatorPostDenominatorPre: 2292.081739775257,
      numeratorPreDenominatorPre: 698.4173425817908,
      numeratorPostDenominatorPost: 3918.1561431600717,
      numeratorPostDenominatorPre: 1701.0287270040265,
      numeratorPreDenominatorPost: 1604.0759503266522,
    },
  };

  test('fixed horizon, relative', () => {
    effect(
      fixedHorizonComparison(control, treatment, 0.05).relative,
      { effect: -0.0007, ci: [-0.00841, 0.007], se: 0.00391, p: 0.85771 },
      `${GBSTATS_TESTS}:134`,
    );
  });

  test('sequential, relative', () => {
    effect(
      sequentialComparison(control, treatment, 0.05).relative,
      { effect: -0.0007, ci: [-0.02063, 0.01923], se: 0.00391, p: 1 },
      `${GBSTATS_TESTS}:271`,
    );
  });

  test('the statistic from per-subject rows, and its merge', () => {
    const rows = [
      { numeratorPost: 2, denominatorPost: 1, numeratorPre: 1, denominatorPre: 1 },
      { numeratorPost: 3, denominatorPost: 2, numeratorPre: 0, denominatorPre: 2 },
    ];
    const whole = cupedRatioStatistic(rows);
    assert.equal(whole.sums.numeratorPostDenominatorPost, 8);
    assert.equal(whole.sums.numeratorPreDenominatorPost, 1);
    assert.deepEqual(mergeStatistics(cupedRatioStatistic(rows.slice(0, 1)), cupedRatioStatistic(rows.slice(1))), whole);
    assert.equal(describeStatistic(whole).mean, 5 / 3);
  });
});

describe('analysis: sequential confidence sequence (Waudby-Smith et al., as gbstats)', () => {
  test('means with N* = 1000', () => {
    // test_sequential_test_runs, test_tests.py:198-216
    effect(
      sequentialComparison(mean(3000, 1396.87, 52377.9767), B, 0.05, 1000).relative,
      { effect: 0.50336, ci: [-0.55844, 1.56516], se: 0.33341, p: 1 },
      `${GBSTATS_TESTS}:198`,
    );
  });

  test('proportions with the default N* = 5000', () => {
    // test_sequential_test_runs_prop, test_tests.py:218-234
    effect(
      sequentialComparison(proportion(3000, 1396), proportion(3461, 2422), 0.05).relative,
      { effect: 0.50386, ci: [0.40098, 0.60675], se: 0.03386, p: 0 },
      `${GBSTATS_TESTS}:218`,
    );
  });

  test('CUPED with the default N*', () => {
    // test_sequential_test_runs_ra, test_tests.py:236-269
    const c: CupedStatistic = {
      kind: 'cuped',
      metric: 'mean',
      n: 3000,
      post: moments(3000, 1396.87, 52377.9767),
      pre: moments(3000, 16.87, 527.9767),
      sumProducts: 1,
    };
    const t: CupedStatistic = {
      kind: 'cuped',
      metric: 'mean',
      n: 3461,
      post: moments(3461, 2422.7, 134698.29),
      pre: moments(3461, 22.7, 1348.29),
      sumProducts: 1,
    };
    effect(
      sequentialComparison(c, t, 0.05).relative,
      { effect: 0.50338, ci: [-0.50969, 1.51646], se: 0.33341, p: 1 },
      `${GBSTATS_TESTS}:236`,
    );
  });

  test('a tuning near the observed units gives the tightest interval', () => {
    // test_sequential_test_tuning_as_expected, test_tests.py:331-362
    const a = mean(3000, 1396.87, 52377.9767);
    const width = (tuning: number) => {
      const ci = sequentialComparison(a, B, 0.05, tuning).relative!.ci;
      return ci;
    };
    const below = width(10);
    const near6461 = width(6461);
    const above = width(10000);
    assert.ok(below[0] < above[0] && below[1] > above[1]);
    assert.ok(below[0] < near6461[0] && below[1] > near6461[1]);
    assert.ok(above[0] < near6461[0] && above[1] > near6461[1]);
  });

  test('the sequential interval is wider than the fixed-horizon one', () => {
    const fixed = fixedHorizonComparison(A, B, 0.05).relative!;
    const sequential = sequentialComparison(A, B, 0.05).relative!;
    assert.ok(sequential.ci[0] < fixed.ci[0] && sequential.ci[1] > fixed.ci[1]);
  });
});

describe('analysis: sample-ratio mismatch and health', () => {
  test('SRM p-values (GrowthBook checkSrm vectors, 9 decimals)', () => {
    // stats.test.ts:4-37
    const cases: [number[], number[], number, string][] = [
      [[1000, 1200], [0.5, 0.5], 0.000020079, `${SRM_TESTS}:6`],
      [[135, 115], [0.5, 0.5], 0.205903211, `${SRM_TESTS}:9`],
      [[310, 98], [0.75, 0.25], 0.647434186, `${SRM_TESTS}:12`],
      [[1000], [0.5, 0.5], 1, `${SRM_TESTS}:15`],
      [[1000, 900, 800], [1, 0, 0], 1, `${SRM_TESTS}:18`],
      [[1000, 1200, 900], [0.5, 0.5, 0], 0.000020079, `${SRM_TESTS}:21`],
      [[0, 0, 0], [0.34, 0.33, 0.33], 1, `${SRM_TESTS}:26`],
      [[0, 10, 10], [0.34, 0.33, 0.33], 0.005790624, `${SRM_TESTS}:29`],
      [[500, 500, 600], [0.34, 0.33, 0.33], 0.000592638, `${SRM_TESTS}:34`],
      [[500, 500], [0.5, 0.5], 1, `${SRM_TESTS}:39`],
    ];
    for (const [units, weights, p, source] of cases) near(sampleRatioMismatch(units, weights).pValue, p, 9, source);
  });

  test('the chi-square tail is computed without cancellation', () => {
    const p = chiSquareSurvival(200, 1);
    assert.ok(p > 2.0e-45 && p < 2.2e-45, `χ²(200, 1 df) tail ${p}`);
    near(chiSquareSurvival(3.841458820694124, 1), 0.05, 12, 'the 95 % critical value');
    // χ² = 88.9: 1 − cdf is 0 in double precision, the upper tail about 5e-21.
    const srm = sampleRatioMismatch([1100, 700], [0.5, 0.5]);
    assert.ok(srm.pValue > 0 && srm.pValue < 1e-15, `a strong mismatch keeps its p-value digits: ${srm.pValue}`);
    assert.equal(srm.status, 'unhealthy');
  });

  test('SRM is unhealthy below p = 0.001 only with at least 8 units per variant', () => {
    assert.equal(sampleRatioMismatch([1000, 1200], [0.5, 0.5]).status, 'unhealthy');
    assert.equal(sampleRatioMismatch([135, 115], [0.5, 0.5]).status, 'healthy');
    assert.equal(sampleRatioMismatch([15, 0], [0.5, 0.5]).status, 'not_enough_data');
    const sixteen = sampleRatioMismatch([16, 0], [0.5, 0.5]);
    assert.ok(sixteen.pValue < 0.001);
    assert.equal(sixteen.status, 'unhealthy');
    assert.equal(sampleRatioMismatch([0, 0], [0.5, 0.5]).status, 'not_enough_data');
  });

  test('multiple exposures: unhealthy from 1 % once 10 subjects are seen', () => {
    assert.deepEqual(multipleExposures(1, 5), { count: 1, rate: 1 / 6, status: 'not_enough_data' });
    assert.equal(multipleExposures(1, 99).status, 'unhealthy');
    assert.equal(multipleExposures(1, 100).status, 'healthy');
    assert.equal(multipleExposures(0, 0).status, 'not_enough_data');
  });
});

describe('analysis: power', () => {
  const metric = { mean: 10, variance: 3909.9997749994377 };

  test('power and MDE at planned units (GrowthBook power vectors)', () => {
    // "calculates power correctly", power.test.ts:34-52; "calculates two-tailed mde correctly", power.test.ts:53-74
    const result = powerAnalysis({
      metric,
      mde: 0.05,
      variants: 3,
      unitsPerDay: 10_000,
      plannedUnits: 400_000,
      alpha: 0.05,
    });
    near(result.atPlannedUnits!.power, 0.52144, 5, `${POWER_TESTS}:51`);
    near(result.atPlannedUnits!.mde!, 0.07027, 5, `${POWER_TESTS}:73`);
  });

  test('sequential power and MDE with N* = 5000', () => {
    // "calculates sequential power correctly", power.test.ts:75-93; "calculates sequential mde correctly", power.test.ts:94-114
    near(powerAt(metric, 0.05, 400_000 / 3, { alpha: 0.05, sequentialTuning: 5000 }), 0.20596, 5, `${POWER_TESTS}:92`);
    near(mdeAt(metric, 0.8, 400_000 / 3, { alpha: 0.05, sequentialTuning: 5000 })!, 0.12821, 5, `${POWER_TESTS}:113`);
  });

  test('required units follow the closed form, and reach the requested power', () => {
    const z = 1.959963984540054 + 0.8416212335729143;
    const expected = Math.ceil((z ** 2 * metric.variance * (1 + 1.05 ** 2)) / (0.05 ** 2 * 100));
    const result = powerAnalysis({ metric, mde: 0.05, variants: 3, unitsPerDay: 10_000 });
    assert.equal(result.readiness, 'ready');
    assert.deepEqual(result.requiredUnits, { perVariant: expected, total: expected * 3 });
    assert.equal(result.durationDays, Math.ceil((expected * 3) / 10_000));
    const achieved = powerAt(metric, 0.05, expected, { alpha: 0.05 });
    assert.ok(achieved >= 0.8 && achieved < 0.8001, `power at the required units ${achieved}`);
    // The MDE at the required units is the requested effect (the two are inverse).
    near(mdeAt(metric, 0.8, expected, { alpha: 0.05 })!, 0.05, 4, 'mde at required units');
  });

  test('the sensitivity table needs more units for smaller effects', () => {
    const result = powerAnalysis({ metric, mde: 0.05, variants: 2, unitsPerDay: 5000 });
    assert.deepEqual(
      result.sensitivity.map((s) => s.mde),
      [0.025, 0.0375, 0.05, 0.075, 0.1],
    );
    for (let i = 1; i < result.sensitivity.length; i++)
      assert.ok(result.sensitivity[i]!.requiredUnits < result.sensitivity[i - 1]!.requiredUnits);
    assert.equal(result.sensitivity[2]!.requiredUnits, result.requiredUnits!.total);
  });

  test('sequential analysis needs more units than a fixed horizon', () => {
    const fixed = requiredUnitsPerVariant(metric, 0.05, 0.8, { alpha: 0.05 });
    const sequential = requiredUnitsPerVariant(metric, 0.05, 0.8, { alpha: 0.05, sequentialTuning: 5000 });
    assert.ok(sequential > fixed);
    assert.ok(powerAt(metric, 0.05, sequential, { alpha: 0.05, sequentialTuning: 5000 }) >= 0.8);
    assert.ok(powerAt(metric, 0.05, sequential - 1, { alpha: 0.05, sequentialTuning: 5000 }) < 0.8);
  });

  test('invalid inputs are reported, not computed; an unreachable MDE is null', () => {
    const bad = powerAnalysis({ metric: { mean: 0, variance: -1 }, mde: 0, variants: 11, unitsPerDay: 0, power: 0.01 });
    assert.equal(bad.readiness, 'invalid');
    assert.equal(bad.requiredUnits, null);
    assert.equal(bad.reasons.length, 6);
    assert.equal(mdeAt(metric, 0.8, 100, { alpha: 0.05 }), null);
  });
});

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

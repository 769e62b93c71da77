// descriptive-v1's fixed-horizon comparison (Welch t-test) of means, proportions and ratio metrics
// (delta method), against GrowthBook's vectors (analysis.fixtures.ts names their source).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  describeStatistic,
  differenceVariance,
  fixedHorizonComparison,
  ratioStatistic,
  type RatioStatistic,
} from './index.js';
import {
  GBSTATS_TESTS,
  GBSTATS_E2E,
  POWER_TESTS,
  near,
  effect,
  mean,
  proportion,
  moments,
  A,
  B,
} from './analysis.fixtures.js';

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

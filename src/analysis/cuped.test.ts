// descriptive-v1's CUPED adjustment, of plain and of ratio metrics, against GrowthBook's vectors
// (analysis.fixtures.ts names their source).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  cupedRatioStatistic,
  cupedStatistic,
  describeStatistic,
  fixedHorizonComparison,
  mergeStatistics,
  sequentialComparison,
  type CupedRatioStatistic,
  type CupedStatistic,
} from './index.js';
import { GBSTATS_E2E, GBSTATS_TESTS, effect, mean, moments, near } from './analysis.fixtures.js';

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

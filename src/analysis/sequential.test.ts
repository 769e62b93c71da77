// descriptive-v1's sequential confidence sequence (Waudby-Smith et al., as gbstats), against
// GrowthBook's vectors (analysis.fixtures.ts names their source).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedHorizonComparison, sequentialComparison, type CupedStatistic } from './index.js';
import { A, B, GBSTATS_TESTS, effect, mean, moments, proportion } from './analysis.fixtures.js';

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

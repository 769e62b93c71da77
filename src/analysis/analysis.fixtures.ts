// What the descriptive-v1 test files share: GrowthBook's published vectors (MIT; growthbook/growthbook
// at commit 8f1db44569), the source files they come from (each vector names its file and line), the
// comparison to 5 decimals unless the source states more, and the statistics the vectors are written in.
import assert from 'node:assert/strict';
import type { EffectResult, SampleStatistic } from './index.js';

export const GBSTATS_TESTS = 'packages/stats/tests/frequentist/test_tests.py';
export const GBSTATS_E2E = 'packages/stats/tests/test_gbstats.py';
export const POWER_TESTS = 'packages/shared/test/power.test.ts';
export const SRM_TESTS = 'packages/back-end/test/stats.test.ts';

export function near(actual: number, expected: number, decimals = 5, label = '') {
  const tolerance = 0.5 * 10 ** -decimals + 1e-12;
  assert.ok(Math.abs(actual - expected) <= tolerance, `${label}: ${actual} is not ${expected} to ${decimals} decimals`);
}

export function effect(
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

export const mean = (n: number, sum: number, sumSquares: number): SampleStatistic => ({
  kind: 'mean',
  n,
  sum,
  sumSquares,
});
export const proportion = (n: number, sum: number): SampleStatistic => ({
  kind: 'proportion',
  n,
  sum,
  sumSquares: sum,
});
export const moments = (n: number, sum: number, sumSquares: number) => ({ n, sum, sumSquares });

// TestTwoSidedTTest.setUp, test_tests.py:59-60
export const A = mean(3407, 1396.87, 52377.9767);
export const B = mean(3461, 2422.7, 134698.29);

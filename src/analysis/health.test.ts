// descriptive-v1's health checks: sample-ratio mismatch, against GrowthBook's vectors
// (analysis.fixtures.ts names their source), and multiple exposures.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chiSquareSurvival, multipleExposures, sampleRatioMismatch } from './index.js';
import { SRM_TESTS, near } from './analysis.fixtures.js';

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

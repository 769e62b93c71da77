// descriptive-v1's power analysis (power, MDE, required units, sensitivity), against GrowthBook's
// vectors (analysis.fixtures.ts names their source).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mdeAt, powerAnalysis, powerAt, requiredUnitsPerVariant } from './index.js';
import { POWER_TESTS, near } from './analysis.fixtures.js';

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

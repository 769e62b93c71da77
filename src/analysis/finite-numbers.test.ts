// descriptive-v1 never answers a number that is not finite (issue 18): an effect too large for a
// float is unavailable (`out_of_range`), and a statistic holding a non-finite sum is recognised
// before anything reads it as 0.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  analyzeExperiment,
  fixedHorizonComparison,
  isFiniteStatistic,
  sequentialComparison,
  type SampleStatistic,
  type VariantStatistic,
} from './index.js';

const sample = (values: number[]): SampleStatistic => ({
  kind: 'mean',
  n: values.length,
  sum: values.reduce((a, b) => a + b, 0),
  sumSquares: values.reduce((a, b) => a + b * b, 0),
});

/** Every number anywhere in a value. */
function numbersIn(value: unknown, out: number[] = []): number[] {
  if (typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const v of value) numbersIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) numbersIn(v, out);
  return out;
}

describe('analysis: numbers at the edge of a float', () => {
  test('a relative effect over a control mean of nearly 0 is out_of_range, the absolute one is still given', () => {
    const control = sample([-1, 1, 1e-300]);
    const treatment = sample([1e15, 2e15, 1.5e15]);
    for (const result of [
      fixedHorizonComparison(control, treatment, 0.05),
      sequentialComparison(control, treatment, 0.05),
    ]) {
      assert.equal(result.relative, null);
      assert.equal(result.unavailable, 'out_of_range');
      assert.ok(result.absolute);
      assert.ok(numbersIn(result).every(Number.isFinite), JSON.stringify(result));
    }
  });

  test('the whole analysis over extreme but accepted values holds finite numbers only', () => {
    const variants = [
      { key: 'control', weight: 50, units: 3, metrics: { m: sample([-1e15, 1e15, 1e-300]) } },
      { key: 'treatment', weight: 50, units: 3, metrics: { m: sample([1e15, 1e15, 1e15 - 1]) } },
    ];
    const result = analyzeExperiment({
      variants,
      primaryMetricId: 'm',
      alpha: 0.05,
      sequential: { tuning: 5000 },
      minimumUnitsPerVariant: 1,
      multipleExposures: 0,
    });
    assert.ok(numbersIn(result).every(Number.isFinite), JSON.stringify(result));
  });

  test('isFiniteStatistic refuses a statistic with a non-finite or missing sum, of every kind', () => {
    const m = { n: 2, sum: 3, sumSquares: 5 };
    const good: VariantStatistic[] = [
      { kind: 'mean', ...m },
      { kind: 'ratio', n: 2, numerator: m, denominator: m, sumProducts: 4 },
      { kind: 'cuped', metric: 'mean', n: 2, post: m, pre: m, sumProducts: 4 },
      {
        kind: 'cupedRatio',
        n: 2,
        numeratorPost: m,
        denominatorPost: m,
        numeratorPre: m,
        denominatorPre: m,
        sums: {
          numeratorPostDenominatorPost: 1,
          numeratorPostNumeratorPre: 1,
          numeratorPostDenominatorPre: 1,
          numeratorPreDenominatorPost: 1,
          denominatorPostDenominatorPre: 1,
          numeratorPreDenominatorPre: 1,
        },
      },
    ];
    for (const s of good) assert.equal(isFiniteStatistic(s), true, s.kind);
    assert.equal(isFiniteStatistic({ kind: 'mean', n: 2, sum: Infinity, sumSquares: Infinity }), false);
    assert.equal(
      isFiniteStatistic({ kind: 'mean', n: 2, sum: null as unknown as number, sumSquares: 5 }),
      false,
      'what JSON made of Infinity',
    );
    assert.equal(isFiniteStatistic({ kind: 'ratio', n: 2, numerator: m, denominator: m, sumProducts: NaN }), false);
    assert.equal(
      isFiniteStatistic({
        ...(good[3] as any),
        sums: { ...(good[3] as any).sums, numeratorPreDenominatorPre: -Infinity },
      }),
      false,
    );
    // Finite sums whose square overflows: the variance a results page shows would not be finite.
    assert.equal(isFiniteStatistic({ kind: 'mean', n: 3, sum: 1e200, sumSquares: 1e300 }), false);
  });
});

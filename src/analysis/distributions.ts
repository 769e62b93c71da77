// The distributions of descriptive-v1, from @stdlib's per-function packages (ARCHITECTURE: never
// hand-rolled). Tails are taken directly (the lower tail of −|x|, the upper regularized incomplete
// gamma function), never as 1 − cdf, so small p-values keep their digits: a chi-square of 200 with
// one degree of freedom gives 2.1e-45, where 1 − cdf gives 0.
//
// The packages (432 CommonJS files, 2 MiB of heap once loaded) are required on first use, not at
// start: most server processes never analyse an experiment (decision 0057). `require` keeps these
// functions synchronous.
import { createRequire } from 'node:module';
import type gammainc from '@stdlib/math-base-special-gammainc';
import type normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import type normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import type tCdf from '@stdlib/stats-base-dists-t-cdf';
import type tQuantile from '@stdlib/stats-base-dists-t-quantile';

const require = createRequire(import.meta.url);
let loaded:
  | {
      gammainc: typeof gammainc;
      normalCdf: typeof normalCdf;
      normalQuantile: typeof normalQuantile;
      tCdf: typeof tCdf;
      tQuantile: typeof tQuantile;
    }
  | undefined;

function stdlib() {
  return (loaded ??= {
    gammainc: require('@stdlib/math-base-special-gammainc') as typeof gammainc,
    normalCdf: require('@stdlib/stats-base-dists-normal-cdf') as typeof normalCdf,
    normalQuantile: require('@stdlib/stats-base-dists-normal-quantile') as typeof normalQuantile,
    tCdf: require('@stdlib/stats-base-dists-t-cdf') as typeof tCdf,
    tQuantile: require('@stdlib/stats-base-dists-t-quantile') as typeof tQuantile,
  });
}

/** Φ(x), the standard normal distribution function. */
export function standardNormalCdf(x: number): number {
  return stdlib().normalCdf(x, 0, 1);
}

/** Φ⁻¹(p). */
export function standardNormalQuantile(p: number): number {
  return stdlib().normalQuantile(p, 0, 1);
}

export function studentTQuantile(p: number, dof: number): number {
  return stdlib().tQuantile(p, dof);
}

/** Two-sided p-value of a t statistic: 2·F(−|t|), the lower tail evaluated directly. */
export function twoSidedTPValue(t: number, dof: number): number {
  return Math.min(1, 2 * stdlib().tCdf(-Math.abs(t), dof));
}

/** P(X ≥ x) for X ~ χ²(df): Q(df/2, x/2), the upper regularized incomplete gamma function. */
export function chiSquareSurvival(x: number, df: number): number {
  if (!(x > 0)) return 1;
  return stdlib().gammainc(x / 2, df / 2, true, true);
}

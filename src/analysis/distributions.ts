// The distributions of descriptive-v1, from @stdlib's per-function packages (ARCHITECTURE: never
// hand-rolled). Tails are taken directly (the lower tail of −|x|, the upper regularized incomplete
// gamma function), never as 1 − cdf, so small p-values keep their digits: a chi-square of 200 with
// one degree of freedom gives 2.1e-45, where 1 − cdf gives 0.
import gammainc from '@stdlib/math-base-special-gammainc';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';

/** Φ(x), the standard normal distribution function. */
export function standardNormalCdf(x: number): number {
  return normalCdf(x, 0, 1);
}

/** Φ⁻¹(p). */
export function standardNormalQuantile(p: number): number {
  return normalQuantile(p, 0, 1);
}

export function studentTQuantile(p: number, dof: number): number {
  return tQuantile(p, dof);
}

/** Two-sided p-value of a t statistic: 2·F(−|t|), the lower tail evaluated directly. */
export function twoSidedTPValue(t: number, dof: number): number {
  return Math.min(1, 2 * tCdf(-Math.abs(t), dof));
}

/** P(X ≥ x) for X ~ χ²(df): Q(df/2, x/2), the upper regularized incomplete gamma function. */
export function chiSquareSurvival(x: number, df: number): number {
  if (!(x > 0)) return 1;
  return gammainc(x / 2, df / 2, true, true);
}

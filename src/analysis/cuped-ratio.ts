// CUPED for ratio metrics: the post-exposure ratio M/D adjusted by θ times the pre-exposure ratio
// M'/D', with variances by the delta method over the 4×4 covariance matrix Λ of (M, D, M', D').
// Follows gbstats RegressionAdjustedRatioStatistic and compute_theta_regression_adjusted_ratio
// (packages/stats/gbstats/models/statistics.py) and frequentist_variance_relative_cuped_ratio
// (packages/stats/gbstats/models/tests.py).
import { covarianceOf, meanOf, varianceOf, type CupedRatioStatistic, type Moments } from './sufficient-statistics.js';

type Vector4 = [number, number, number, number];
type Matrix4 = [Vector4, Vector4, Vector4, Vector4];

function cov(n: number, a: Moments, b: Moments, sumProducts: number): number {
  return covarianceOf(n, a, b, sumProducts, 'mean');
}

/** Λ: covariances of the per-unit (M, D, M', D'). */
export function lambdaMatrix(s: CupedRatioStatistic): Matrix4 {
  const { n, numeratorPost: m, denominatorPost: d, numeratorPre: mp, denominatorPre: dp, sums } = s;
  const mD = cov(n, m, d, sums.numeratorPostDenominatorPost);
  const mMp = cov(n, m, mp, sums.numeratorPostNumeratorPre);
  const mDp = cov(n, m, dp, sums.numeratorPostDenominatorPre);
  const dMp = cov(n, d, mp, sums.numeratorPreDenominatorPost);
  const dDp = cov(n, d, dp, sums.denominatorPostDenominatorPre);
  const mpDp = cov(n, mp, dp, sums.numeratorPreDenominatorPre);
  return [
    [varianceOf(m, 'mean'), mD, mMp, mDp],
    [mD, varianceOf(d, 'mean'), dMp, dDp],
    [mMp, dMp, varianceOf(mp, 'mean'), mpDp],
    [mDp, dDp, mpDp, varianceOf(dp, 'mean')],
  ];
}

function betaHat(s: CupedRatioStatistic): Vector4 {
  return [meanOf(s.numeratorPost), meanOf(s.denominatorPost), meanOf(s.numeratorPre), meanOf(s.denominatorPre)];
}

/** ∇ of M/D − θ·M'/D' at the means. */
function nabla(s: CupedRatioStatistic, theta: number): Vector4 {
  const [m, d, mp, dp] = betaHat(s);
  if (d === 0 || dp === 0) return [0, 0, 0, 0];
  return [1 / d, -m / d ** 2, -theta / dp, (theta * mp) / dp ** 2];
}

/** xᵀ Λ[rows, cols] y over index ranges. */
function form(x: number[], lambda: Matrix4, rows: number[], cols: number[], y: number[]): number {
  let total = 0;
  rows.forEach((r, i) => cols.forEach((c, j) => (total += x[i]! * lambda[r]![c]! * y[j]!)));
  return total;
}

const ALL = [0, 1, 2, 3];
const POST = [0, 1];
const PRE = [2, 3];

/** θ minimising the variance of the adjusted difference, pooled over both arms. */
export function cupedRatioTheta(a: CupedRatioStatistic, b: CupedRatioStatistic): number {
  const parts = [a, b].map((s) => {
    const g = nabla(s, 1);
    const lambda = lambdaMatrix(s);
    return {
      varPre: form(g.slice(2), lambda, PRE, PRE, g.slice(2)),
      covariance: form(g.slice(2), lambda, PRE, POST, g.slice(0, 2)),
    };
  });
  const varPre = parts[0]!.varPre + parts[1]!.varPre;
  if (varPre === 0) return 0;
  return -(parts[0]!.covariance + parts[1]!.covariance) / varPre;
}

export function postRatioMean(s: CupedRatioStatistic): number {
  return s.denominatorPost.sum === 0 ? 0 : s.numeratorPost.sum / s.denominatorPost.sum;
}

function preRatioMean(s: CupedRatioStatistic): number {
  return s.denominatorPre.sum === 0 ? 0 : s.numeratorPre.sum / s.denominatorPre.sum;
}

export function adjustedRatioMean(s: CupedRatioStatistic, theta: number): number {
  if (s.denominatorPost.sum === 0 || s.denominatorPre.sum === 0) return 0;
  return postRatioMean(s) - theta * preRatioMean(s);
}

/** Per-unit variance of the adjusted ratio: ∇ᵀ Λ ∇. */
export function adjustedRatioVariance(s: CupedRatioStatistic, theta: number): number {
  const g = nabla(s, theta);
  return form(g, lambdaMatrix(s), ALL, ALL, g);
}

/** Var of the relative effect (mean_b − mean_a) / |unadjusted mean_a| by the delta method. */
export function relativeCupedRatioVariance(a: CupedRatioStatistic, b: CupedRatioStatistic, theta: number): number {
  const baseline = postRatioMean(a);
  const dPostA = meanOf(a.denominatorPost);
  if (baseline === 0 || dPostA === 0) return 0;
  const gAbs = (adjustedRatioMean(b, theta) - adjustedRatioMean(a, theta)) * Math.sign(baseline);
  const gRelDen = Math.abs(baseline);
  const mPostA = meanOf(a.numeratorPost);
  const gradientA = nabla(a, theta);
  const nablaA = [
    -(gRelDen + gAbs) / dPostA / gRelDen ** 2,
    ((mPostA * gRelDen) / dPostA ** 2 + (mPostA * gAbs) / dPostA ** 2) / gRelDen ** 2,
    -gradientA[2] / gRelDen,
    -gradientA[3] / gRelDen,
  ];
  const nablaB = nabla(b, theta).map((x) => x / gRelDen);
  return form(nablaA, lambdaMatrix(a), ALL, ALL, nablaA) / a.n + form(nablaB, lambdaMatrix(b), ALL, ALL, nablaB) / b.n;
}

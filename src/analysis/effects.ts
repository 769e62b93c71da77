// Effect moments of a treatment against control: the point estimate of the absolute or relative
// difference of means, its standard error (delta method) and Welch–Satterthwaite degrees of
// freedom. Follows gbstats' EffectMoments (packages/stats/gbstats/models/tests.py) and
// frequentist_diff / frequentist_variance (packages/stats/gbstats/utils.py), including CUPED's θ
// pooled over both arms (compute_theta, create_theta_adjusted_statistics in models/statistics.py).
import {
  adjustedRatioMean,
  adjustedRatioVariance,
  cupedRatioTheta,
  postRatioMean,
  relativeCupedRatioVariance,
} from './cuped-ratio.js';
import {
  covarianceOf,
  meanOf,
  postRatioOf,
  ratioMoments,
  type CupedRatioStatistic,
  varianceOf,
  type CupedStatistic,
  type Moments,
  type VariantStatistic,
} from './sufficient-statistics.js';

export type EffectScale = 'absolute' | 'relative';

/**
 * Why an effect could not be estimated (gbstats answers an uninformative default then);
 * `out_of_range` when the effect or its interval is too large for a 64-bit float (a relative
 * effect over a control mean of nearly 0, say).
 */
export type EffectUnavailable = 'zero_variance' | 'baseline_zero' | 'mismatched_statistics' | 'out_of_range';

export interface EffectMoments {
  estimate: number;
  standardError: number;
  /** Welch–Satterthwaite degrees of freedom. */
  dof: number;
  /** Units in both arms (the n of the sequential interval). */
  pairwiseUnits: number;
}

/** A variant's statistic ready for comparison: (adjusted) mean, per-unit variance, unadjusted mean. */
interface Prepared {
  n: number;
  mean: number;
  unadjustedMean: number;
  variance: number;
  cuped?: { theta: number; source: CupedStatistic };
  cupedRatio?: { theta: number; source: CupedRatioStatistic };
}

/** θ of a CUPED pair; null when the statistics are not CUPED. */
function thetaOf(a: VariantStatistic, b: VariantStatistic): number | null {
  if (a.kind === 'cuped' && b.kind === 'cuped') return cupedTheta(a, b);
  if (a.kind === 'cupedRatio' && b.kind === 'cupedRatio') {
    const theta = cupedRatioTheta(a, b);
    // gbstats reverts to the unadjusted ratio below this.
    return Math.abs(theta) < 1e-8 ? 0 : theta;
  }
  return null;
}

/** θ = Cov(post, pre) / Var(pre) over both arms together (gbstats compute_theta); 0 when either is constant. */
export function cupedTheta(a: CupedStatistic, b: CupedStatistic): number {
  const n = a.n + b.n;
  const post: Moments = { n, sum: a.post.sum + b.post.sum, sumSquares: a.post.sumSquares + b.post.sumSquares };
  const pre: Moments = { n, sum: a.pre.sum + b.pre.sum, sumSquares: a.pre.sumSquares + b.pre.sumSquares };
  const preVariance = varianceOf(pre, a.metric);
  if (preVariance === 0 || varianceOf(post, a.metric) === 0) return 0;
  return covarianceOf(n, post, pre, a.sumProducts + b.sumProducts, a.metric) / preVariance;
}

function prepare(s: VariantStatistic, theta: number | null): Prepared {
  switch (s.kind) {
    case 'mean':
    case 'proportion':
      return { n: s.n, mean: meanOf(s), unadjustedMean: meanOf(s), variance: varianceOf(s, s.kind) };
    case 'ratio': {
      const { mean, variance } = ratioMoments(s);
      return { n: s.n, mean, unadjustedMean: mean, variance };
    }
    case 'cuped': {
      const postMean = meanOf(s.post);
      // θ = 0 means no usable pre-exposure variation: the post statistic alone (gbstats reverts too).
      if (!theta) return { n: s.n, mean: postMean, unadjustedMean: postMean, variance: varianceOf(s.post, s.metric) };
      const covariance = covarianceOf(s.n, s.post, s.pre, s.sumProducts, s.metric);
      const variance =
        s.n <= 1 ? 0 : varianceOf(s.post, s.metric) + theta ** 2 * varianceOf(s.pre, s.metric) - 2 * theta * covariance;
      return {
        n: s.n,
        mean: postMean - theta * meanOf(s.pre),
        unadjustedMean: postMean,
        variance,
        cuped: { theta, source: s },
      };
    }
    case 'cupedRatio': {
      if (!theta) return prepare(postRatioOf(s), null);
      return {
        n: s.n,
        mean: adjustedRatioMean(s, theta),
        unadjustedMean: postRatioMean(s),
        variance: adjustedRatioVariance(s, theta),
        cupedRatio: { theta, source: s },
      };
    }
  }
}

/** Var of the relative CUPED effect (gbstats frequentist_variance_relative_cuped). */
function relativeCupedVariance(a: Prepared, b: Prepared): number {
  const ca = a.cuped!.source;
  const cb = b.cuped!.source;
  const theta = a.cuped!.theta;
  const baseline = a.unadjustedMean;
  const denTreatment = b.n * baseline ** 2;
  const denControl = a.n * baseline ** 2;
  if (denTreatment === 0 || denControl === 0) return 0;
  const covA = covarianceOf(ca.n, ca.post, ca.pre, ca.sumProducts, ca.metric);
  const covB = covarianceOf(cb.n, cb.post, cb.pre, cb.sumProducts, cb.metric);
  const vTreatment =
    (varianceOf(cb.post, cb.metric) + theta ** 2 * varianceOf(cb.pre, cb.metric) - 2 * theta * covB) / denTreatment;
  const k = -meanOf(cb.post);
  const postMeanA = meanOf(ca.post);
  const vControl =
    ((varianceOf(ca.post, ca.metric) * k ** 2) / postMeanA ** 2 +
      (2 * theta * covA * k) / postMeanA +
      theta ** 2 * varianceOf(ca.pre, ca.metric)) /
    denControl;
  return vTreatment + vControl;
}

/**
 * Var(x̄_B − x̄_A) = σ²_B/n_B + σ²_A/n_A; relative to the control mean, by the delta method,
 * Var((x̄_B − x̄_A)/x̄_A) = σ²_B/(μ_A² n_B) + σ²_A μ_B²/(μ_A⁴ n_A) (gbstats frequentist_variance).
 */
export function differenceVariance(
  control: { variance: number; mean: number; n: number },
  treatment: { variance: number; mean: number; n: number },
  scale: EffectScale,
): number {
  const a = control;
  const b = treatment;
  if (scale === 'absolute') return b.variance / b.n + a.variance / a.n;
  if (a.mean === 0) return 0;
  return b.variance / (b.n * a.mean ** 2) + (a.variance * b.mean ** 2) / (a.n * a.mean ** 4);
}

function welchDof(a: Prepared, b: Prepared): number {
  const va = a.variance / a.n;
  const vb = b.variance / b.n;
  return (va + vb) ** 2 / (b.variance ** 2 / (b.n ** 2 * (b.n - 1)) + a.variance ** 2 / (a.n ** 2 * (a.n - 1)));
}

export type EffectMomentsResult = { ok: true; moments: EffectMoments } | { ok: false; reason: EffectUnavailable };

/**
 * The difference treatment − control on the absolute scale, or relative to |control mean|
 * (unadjusted) with its delta-method variance.
 */
export function effectMoments(
  control: VariantStatistic,
  treatment: VariantStatistic,
  scale: EffectScale,
): EffectMomentsResult {
  if (control.kind !== treatment.kind) return { ok: false, reason: 'mismatched_statistics' };
  const theta = thetaOf(control, treatment);
  const a = prepare(control, theta);
  const b = prepare(treatment, theta);
  const relative = scale === 'relative';
  const variance =
    relative && a.cuped && b.cuped
      ? relativeCupedVariance(a, b)
      : relative && a.cupedRatio && b.cupedRatio
        ? relativeCupedRatioVariance(a.cupedRatio.source, b.cupedRatio.source, a.cupedRatio.theta)
        : differenceVariance(
            { variance: a.variance, mean: a.unadjustedMean, n: a.n },
            { variance: b.variance, mean: b.unadjustedMean, n: b.n },
            scale,
          );
  if (!(a.variance > 0) || !(b.variance > 0) || !(variance > 0)) return { ok: false, reason: 'zero_variance' };
  if (!Number.isFinite(variance)) return { ok: false, reason: 'out_of_range' };
  if (a.mean === 0 || a.unadjustedMean === 0) return { ok: false, reason: 'baseline_zero' };
  const estimate = relative ? (b.mean - a.mean) / Math.abs(a.unadjustedMean) : b.mean - a.mean;
  const dof = welchDof(a, b);
  if (!Number.isFinite(estimate) || !(dof > 0)) return { ok: false, reason: 'out_of_range' };
  return { ok: true, moments: { estimate, standardError: Math.sqrt(variance), dof, pairwiseUnits: a.n + b.n } };
}

// Fixed-horizon and sequential inference on effect moments (effects.ts).
// Fixed horizon: two-sided Welch t-test (gbstats TwoSidedTTest, frequentist/tests.py).
// Sequential: the asymptotic confidence sequence of Waudby-Smith et al., "Time-uniform central limit
// theory and asymptotic confidence sequences" (arXiv:2103.06476v7), eq. 9 for the half-width, eq. 161
// for ρ from the tuning N*, eq. 155 for the always-valid p-value, as gbstats SequentialTwoSidedTTest.
import { studentTQuantile, twoSidedTPValue } from './distributions.js';
import {
  effectMoments,
  type EffectMoments,
  type EffectMomentsResult,
  type EffectScale,
  type EffectUnavailable,
} from './effects.js';
import type { VariantStatistic } from './sufficient-statistics.js';

export interface EffectResult {
  effect: number;
  standardError: number;
  ci: [number, number];
  pValue: number;
}

export interface ComparisonResult {
  absolute: EffectResult | null;
  relative: EffectResult | null;
  /** Why an effect is null. */
  unavailable?: EffectUnavailable;
}

/** GrowthBook's default N* (SequentialConfig.sequential_tuning_parameter). */
export const DEFAULT_SEQUENTIAL_TUNING = 5000;

export function fixedHorizonEffect(m: EffectMoments, alpha: number): EffectResult {
  const halfWidth = studentTQuantile(1 - alpha / 2, m.dof) * m.standardError;
  return {
    effect: m.estimate,
    standardError: m.standardError,
    ci: [m.estimate - halfWidth, m.estimate + halfWidth],
    pValue: twoSidedTPValue(m.estimate / m.standardError, m.dof),
  };
}

/** ρ of the two-sided confidence sequence tuned to be tightest near N* units (eq. 161). */
export function sequentialRho(alpha: number, tuning: number): number {
  return Math.sqrt((-2 * Math.log(alpha) + Math.log(-2 * Math.log(alpha) + 1)) / tuning);
}

/** Half-width of the asymptotic confidence sequence for per-unit variance s² after n units (eq. 9). */
export function sequentialHalfWidth(s2: number, n: number, alpha: number, rho: number): number {
  const nRho2 = n * rho ** 2;
  return Math.sqrt(s2) * Math.sqrt((2 * (nRho2 + 1) * Math.log(Math.sqrt(nRho2 + 1) / alpha)) / (n * rho) ** 2);
}

export function sequentialEffect(m: EffectMoments, alpha: number, tuning: number): EffectResult {
  const n = m.pairwiseUnits;
  const rho = sequentialRho(alpha, tuning);
  // The effect's variance scaled back to one unit: se² · n.
  const halfWidth = sequentialHalfWidth(m.standardError ** 2 * n, n, alpha, rho);
  const st2 = (m.estimate ** 2 * n) / m.standardError ** 2;
  const tr2p1 = n * rho ** 2 + 1;
  const eValue = Math.exp((rho ** 2 * st2) / (2 * tr2p1)) / Math.sqrt(tr2p1);
  return {
    effect: m.estimate,
    standardError: m.standardError,
    ci: [m.estimate - halfWidth, m.estimate + halfWidth],
    pValue: Math.min(1 / eValue, 1),
  };
}

function checkAlpha(alpha: number) {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must lie in (0, 1), got ${alpha}`);
}

const isFiniteEffect = (e: EffectResult) =>
  Number.isFinite(e.effect) &&
  Number.isFinite(e.standardError) &&
  Number.isFinite(e.ci[0]) &&
  Number.isFinite(e.ci[1]) &&
  Number.isFinite(e.pValue);

function compare(
  control: VariantStatistic,
  treatment: VariantStatistic,
  estimate: (m: EffectMoments) => EffectResult,
): ComparisonResult {
  // An interval or p-value that is not a finite number is no estimate: the scale is unavailable.
  const on = (scale: EffectScale): EffectMomentsResult | { ok: true; result: EffectResult } => {
    const moments = effectMoments(control, treatment, scale);
    if (!moments.ok) return moments;
    const result = estimate(moments.moments);
    return isFiniteEffect(result) ? { ok: true, result } : { ok: false, reason: 'out_of_range' };
  };
  const absolute = on('absolute');
  const relative = on('relative');
  const unavailable = !absolute.ok ? absolute.reason : !relative.ok ? relative.reason : undefined;
  return {
    absolute: absolute.ok && 'result' in absolute ? absolute.result : null,
    relative: relative.ok && 'result' in relative ? relative.result : null,
    ...(unavailable ? { unavailable } : {}),
  };
}

/** Two-sided Welch t-test of treatment against control on both scales. */
export function fixedHorizonComparison(
  control: VariantStatistic,
  treatment: VariantStatistic,
  alpha: number,
): ComparisonResult {
  checkAlpha(alpha);
  return compare(control, treatment, (m) => fixedHorizonEffect(m, alpha));
}

/** The asymptotic confidence sequence on both scales. */
export function sequentialComparison(
  control: VariantStatistic,
  treatment: VariantStatistic,
  alpha: number,
  tuning = DEFAULT_SEQUENTIAL_TUNING,
): ComparisonResult {
  checkAlpha(alpha);
  if (!(tuning > 0)) throw new RangeError(`the sequential tuning N* must be positive, got ${tuning}`);
  return compare(control, treatment, (m) => sequentialEffect(m, alpha, tuning));
}

// Power analysis for a relative effect (lift) on one metric, frequentist and two-sided, as GrowthBook's
// power calculator (packages/shared/src/power/power.ts: frequentistVariance, powerEstFrequentist,
// powerFrequentist, findMdeFrequentist, sequentialPowerSequentialVariance).
//
// With baseline mean μ, per-unit variance σ², n units per variant and relative effect δ, the delta
// method gives Var(δ̂) = σ²/(μ²n) + σ²(μ(1+δ))²/(μ⁴n) = σ²(1 + (1+δ)²)/(μ²n).
import { standardNormalCdf, standardNormalQuantile } from './distributions.js';
import { sequentialHalfWidth, sequentialRho } from './inference.js';

export interface PowerMetric {
  /** Baseline mean μ (a proportion's rate). */
  mean: number;
  /** Per-unit variance σ² (p(1 − p) for a proportion). */
  variance: number;
}

export interface PowerSettings {
  alpha: number;
  /** Sequential analysis tuned for N* total units; fixed horizon when absent. */
  sequentialTuning?: number;
}

/** Var(δ̂) of the relative effect with n units in each of the two arms compared. */
export function relativeEffectVariance(metric: PowerMetric, mde: number, unitsPerVariant: number): number {
  return (metric.variance * (1 + (1 + mde) ** 2)) / (metric.mean ** 2 * unitsPerVariant);
}

/**
 * The per-unit variance that makes the fixed-horizon z interval as wide as the confidence sequence
 * after n units (GrowthBook sequentialPowerSequentialVariance): σ²_seq = σ² · (z_seq / z*)².
 */
export function sequentialEquivalentVariance(variance: number, n: number, alpha: number, tuning: number): number {
  const rho = sequentialRho(alpha, tuning);
  const zSequential = sequentialHalfWidth(1, n, alpha, rho) * Math.sqrt(n);
  const zStar = standardNormalQuantile(1 - alpha / 2);
  return variance * (zSequential / zStar) ** 2;
}

function standardError(metric: PowerMetric, mde: number, unitsPerVariant: number, settings: PowerSettings): number {
  const v = relativeEffectVariance(metric, mde, unitsPerVariant);
  if (settings.sequentialTuning === undefined) return Math.sqrt(v);
  // GrowthBook applies the sequential widening to the effect's variance at n = both arms' units.
  return Math.sqrt(sequentialEquivalentVariance(v * 2 * unitsPerVariant, 2 * unitsPerVariant, settings.alpha, settings.sequentialTuning) / (2 * unitsPerVariant));
}

/** Power of the two-sided test: 1 − Φ(z* − δ/se) + Φ(−z* − δ/se). */
export function powerAt(metric: PowerMetric, mde: number, unitsPerVariant: number, settings: PowerSettings): number {
  const zStar = standardNormalQuantile(1 - settings.alpha / 2);
  const standardized = mde / standardError(metric, mde, unitsPerVariant, settings);
  return standardNormalCdf(standardized - zStar) + standardNormalCdf(-zStar - standardized);
}

/**
 * The smallest relative effect detected with `power` at n units per variant (GrowthBook
 * findMdeFrequentist: the positive root of the quadratic in μ_B = μ(1 + δ)); null when none exists
 * (n ≤ σ²z²/μ²: too few units for this many variants).
 */
export function mdeAt(metric: PowerMetric, power: number, unitsPerVariant: number, settings: PowerSettings): number | null {
  if (!(power > settings.alpha && power < 1)) return null;
  const z = standardNormalQuantile(1 - settings.alpha / 2) - standardNormalQuantile(1 - power);
  const m = metric.mean;
  const v = settings.sequentialTuning === undefined ? metric.variance : sequentialEquivalentVariance(metric.variance, 2 * unitsPerVariant, settings.alpha, settings.sequentialTuning);
  if (unitsPerVariant <= (v * z ** 2) / m ** 2) return null;
  const sigma2 = v / unitsPerVariant;
  const a = 1 - (z ** 2 * sigma2) / m ** 2;
  const b = -2 * m;
  const c = m ** 2 - z ** 2 * sigma2;
  const root = (-b + Math.sqrt(b ** 2 - 4 * a * c)) / (2 * a);
  return (root - m) / m;
}

/**
 * Units per variant to detect relative effect `mde` with `power`:
 * ⌈(z₁₋α/₂ + z_power)² · σ² · (1 + (1 + mde)²) / (mde² · μ²)⌉ at a fixed horizon; with sequential
 * analysis the smallest n whose sequential power reaches `power` (found by bisection).
 */
export function requiredUnitsPerVariant(metric: PowerMetric, mde: number, power: number, settings: PowerSettings): number {
  const z = standardNormalQuantile(1 - settings.alpha / 2) + standardNormalQuantile(power);
  const fixed = Math.ceil((z ** 2 * metric.variance * (1 + (1 + mde) ** 2)) / (mde ** 2 * metric.mean ** 2));
  if (settings.sequentialTuning === undefined) return Math.max(2, fixed);
  let low = Math.max(2, Math.floor(fixed / 2));
  let high = Math.max(low + 1, fixed);
  while (powerAt(metric, mde, high, settings) < power) {
    low = high;
    high *= 2;
    if (high > 1e15) return Number.POSITIVE_INFINITY;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (powerAt(metric, mde, mid, settings) >= power) high = mid;
    else low = mid;
  }
  return high;
}

export interface PowerAnalysisInput {
  metric: PowerMetric;
  /** Relative minimum detectable effect, > 0 (0.05 is a 5 % lift). */
  mde: number;
  alpha?: number;
  power?: number;
  /** Variants including control, 2..10. */
  variants: number;
  /** Units per day over all variants together. */
  unitsPerDay: number;
  /** Units planned over all variants together. */
  plannedUnits?: number;
  sequentialTuning?: number;
}

export interface PowerAnalysisResult {
  readiness: 'ready' | 'invalid';
  reasons: string[];
  requiredUnits: { perVariant: number; total: number } | null;
  durationDays: number | null;
  assumptions: { alpha: number; power: number; variants: number; mean: number; variance: number; mde: number; twoSided: true; sequentialTuning: number | null };
  sensitivity: { mde: number; requiredUnits: number; durationDays: number }[];
  atPlannedUnits?: { power: number; mde: number | null };
}

/** The MDE multiples of the sensitivity table. */
export const SENSITIVITY_FACTORS = [0.5, 0.75, 1, 1.5, 2] as const;

function problemsOf(input: PowerAnalysisInput, alpha: number, power: number): string[] {
  const reasons: string[] = [];
  if (!(input.mde > 0) || !Number.isFinite(input.mde)) reasons.push('mde must be a positive relative effect');
  if (!(alpha > 0 && alpha < 1)) reasons.push('alpha must lie in (0, 1)');
  if (!(power > alpha && power < 1)) reasons.push('power must lie between alpha and 1');
  if (!Number.isInteger(input.variants) || input.variants < 2 || input.variants > 10) reasons.push('variants must be an integer from 2 to 10');
  if (!(input.unitsPerDay > 0) || !Number.isFinite(input.unitsPerDay)) reasons.push('unitsPerDay must be positive');
  if (!(input.metric.mean !== 0 && Number.isFinite(input.metric.mean))) reasons.push('the baseline mean must be non-zero (a relative effect of a zero mean is undefined)');
  if (!(input.metric.variance > 0) || !Number.isFinite(input.metric.variance)) reasons.push('the baseline variance must be positive');
  if (input.plannedUnits !== undefined && !(input.plannedUnits >= 2 * input.variants)) reasons.push('plannedUnits must allow at least 2 units per variant');
  if (input.sequentialTuning !== undefined && !(input.sequentialTuning > 0)) reasons.push('the sequential tuning N* must be positive');
  return reasons;
}

export function powerAnalysis(input: PowerAnalysisInput): PowerAnalysisResult {
  const alpha = input.alpha ?? 0.05;
  const power = input.power ?? 0.8;
  const settings: PowerSettings = { alpha, ...(input.sequentialTuning !== undefined ? { sequentialTuning: input.sequentialTuning } : {}) };
  const assumptions = { alpha, power, variants: input.variants, mean: input.metric.mean, variance: input.metric.variance, mde: input.mde, twoSided: true as const, sequentialTuning: input.sequentialTuning ?? null };
  const reasons = problemsOf(input, alpha, power);
  if (reasons.length > 0) return { readiness: 'invalid', reasons, requiredUnits: null, durationDays: null, assumptions, sensitivity: [] };
  const plan = (mde: number) => {
    const perVariant = requiredUnitsPerVariant(input.metric, mde, power, settings);
    const total = perVariant * input.variants;
    return { perVariant, total, durationDays: Math.ceil(total / input.unitsPerDay) };
  };
  const main = plan(input.mde);
  const result: PowerAnalysisResult = {
    readiness: 'ready',
    reasons: [],
    requiredUnits: { perVariant: main.perVariant, total: main.total },
    durationDays: main.durationDays,
    assumptions,
    sensitivity: SENSITIVITY_FACTORS.map((f) => {
      // toPrecision: 0.05 × 0.75 is 0.0375, not 0.037500000000000006.
      const mde = Number((input.mde * f).toPrecision(12));
      const p = plan(mde);
      return { mde, requiredUnits: p.total, durationDays: p.durationDays };
    }),
  };
  if (input.plannedUnits !== undefined) {
    const perVariant = input.plannedUnits / input.variants;
    result.atPlannedUnits = { power: powerAt(input.metric, input.mde, perVariant, settings), mde: mdeAt(input.metric, power, perVariant, settings) };
  }
  return result;
}

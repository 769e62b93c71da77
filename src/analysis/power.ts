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
  return Math.sqrt(
    sequentialEquivalentVariance(
      v * 2 * unitsPerVariant,
      2 * unitsPerVariant,
      settings.alpha,
      settings.sequentialTuning,
    ) /
      (2 * unitsPerVariant),
  );
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
export function mdeAt(
  metric: PowerMetric,
  power: number,
  unitsPerVariant: number,
  settings: PowerSettings,
): number | null {
  if (!(power > settings.alpha && power < 1)) return null;
  const z = standardNormalQuantile(1 - settings.alpha / 2) - standardNormalQuantile(1 - power);
  const m = metric.mean;
  const v =
    settings.sequentialTuning === undefined
      ? metric.variance
      : sequentialEquivalentVariance(metric.variance, 2 * unitsPerVariant, settings.alpha, settings.sequentialTuning);
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
export function requiredUnitsPerVariant(
  metric: PowerMetric,
  mde: number,
  power: number,
  settings: PowerSettings,
): number {
  const z = standardNormalQuantile(1 - settings.alpha / 2) + standardNormalQuantile(power);
  const fixed = Math.ceil((z ** 2 * metric.variance * (1 + (1 + mde) ** 2)) / (mde ** 2 * metric.mean ** 2));
  // Past MAX_PLAN_UNITS (or not a number at all) there is no plan; the bisection below would not even
  // end where neighbouring floats are further apart than 1.
  if (!(fixed <= MAX_PLAN_UNITS)) return Number.POSITIVE_INFINITY;
  if (settings.sequentialTuning === undefined) return Math.max(2, fixed);
  let low = Math.max(2, Math.floor(fixed / 2));
  let high = Math.max(low + 1, fixed);
  while (powerAt(metric, mde, high, settings) < power) {
    low = high;
    high *= 2;
    if (high > MAX_PLAN_UNITS) return Number.POSITIVE_INFINITY;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (powerAt(metric, mde, mid, settings) >= power) high = mid;
    else low = mid;
  }
  return high;
}

/**
 * The most units a plan may need in total (10^15, what `plannedUnits` accepts): every count up to it
 * is an exact integer, and the sequential search stops there. A plan needing more is refused, never
 * answered as a rounded or infinite number.
 */
export const MAX_PLAN_UNITS = 1e15;

export interface PowerAnalysisInput {
  metric: PowerMetric & {
    /** A proportion's mean is its rate p in (0, 1), and its variance is p(1 − p) whatever is sent. */
    kind?: 'count' | 'mean' | 'proportion' | 'ratio';
  };
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

/** An input outside the model, with the request field it is about (a JSON Pointer such as `/mde`). */
export interface PowerProblem {
  path: string;
  message: string;
}

export interface PowerAnalysisResult {
  readiness: 'ready' | 'invalid';
  reasons: string[];
  /** The reasons with the field each is about (the caller answers 400 for fields of its request). */
  problems: PowerProblem[];
  requiredUnits: { perVariant: number; total: number } | null;
  durationDays: number | null;
  assumptions: {
    alpha: number;
    power: number;
    variants: number;
    mean: number;
    variance: number;
    mde: number;
    twoSided: true;
    sequentialTuning: number | null;
  };
  sensitivity: { mde: number; requiredUnits: number; durationDays: number }[];
  atPlannedUnits?: { power: number; mde: number | null };
}

/** The MDE multiples of the sensitivity table. */
export const SENSITIVITY_FACTORS = [0.5, 0.75, 1, 1.5, 2] as const;

function problemsOf(input: PowerAnalysisInput, alpha: number, power: number): PowerProblem[] {
  const problems: PowerProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  const { mean, variance, kind } = input.metric;
  if (!(input.mde > 0) || !Number.isFinite(input.mde)) add('/mde', 'mde must be a positive relative effect');
  if (!(alpha > 0 && alpha < 1)) add('/alpha', 'alpha must lie in (0, 1)');
  if (!(power > alpha && power < 1)) add('/power', 'power must lie between alpha and 1');
  if (!Number.isInteger(input.variants) || input.variants < 2 || input.variants > 10)
    add('/variants', 'variants must be an integer from 2 to 10');
  if (!(input.unitsPerDay > 0) || !Number.isFinite(input.unitsPerDay))
    add('/unitsPerDay', 'unitsPerDay must be positive');
  if (kind === 'proportion') {
    if (!(mean > 0 && mean < 1))
      add('/metric/mean', `a proportion's mean is its rate and must lie strictly between 0 and 1 (got ${mean})`);
    else if (input.mde > 0 && mean * (1 + input.mde) >= 1)
      add(
        '/mde',
        `a rate of ${mean} cannot rise by ${input.mde * 100} % (the treatment rate would be ${mean * (1 + input.mde)}, at least 1)`,
      );
  } else {
    if (!(mean !== 0 && Number.isFinite(mean)))
      add('/metric/mean', 'the baseline mean must be non-zero (a relative effect of a zero mean is undefined)');
    if (!(variance > 0) || !Number.isFinite(variance))
      add('/metric/variance', 'the baseline variance must be positive');
  }
  if (input.plannedUnits !== undefined && !(input.plannedUnits >= 2 * input.variants))
    add('/plannedUnits', 'plannedUnits must allow at least 2 units per variant');
  if (input.sequentialTuning !== undefined && !(input.sequentialTuning > 0))
    add('/sequentialTuning', 'the sequential tuning N* must be positive');
  return problems;
}

/** The variance the model uses: a proportion's p(1 − p), any other metric's as given. */
export function modelVariance(metric: PowerAnalysisInput['metric']): number {
  return metric.kind === 'proportion' ? metric.mean * (1 - metric.mean) : metric.variance;
}

const isCount = (n: number, max: number) => Number.isFinite(n) && n >= 0 && n <= max;

export function powerAnalysis(input: PowerAnalysisInput): PowerAnalysisResult {
  const alpha = input.alpha ?? 0.05;
  const power = input.power ?? 0.8;
  const settings: PowerSettings = {
    alpha,
    ...(input.sequentialTuning !== undefined ? { sequentialTuning: input.sequentialTuning } : {}),
  };
  const metric: PowerMetric = { mean: input.metric.mean, variance: modelVariance(input.metric) };
  const assumptions = {
    alpha,
    power,
    variants: input.variants,
    mean: metric.mean,
    variance: metric.variance,
    mde: input.mde,
    twoSided: true as const,
    sequentialTuning: input.sequentialTuning ?? null,
  };
  const invalid = (problems: PowerProblem[]): PowerAnalysisResult => ({
    readiness: 'invalid',
    reasons: problems.map((p) => p.message),
    problems,
    requiredUnits: null,
    durationDays: null,
    assumptions: Number.isFinite(assumptions.variance) ? assumptions : { ...assumptions, variance: 0 },
    sensitivity: [],
  });
  const problems = problemsOf(input, alpha, power);
  if (problems.length > 0) return invalid(problems);
  /** The plan for `mde`, or null when it needs more than MAX_PLAN_UNITS units or lasts past 2^53 − 1 days. */
  const plan = (mde: number) => {
    const perVariant = requiredUnitsPerVariant(metric, mde, power, settings);
    const total = perVariant * input.variants;
    const durationDays = Math.ceil(total / input.unitsPerDay);
    return { perVariant, total, durationDays };
  };
  const main = plan(input.mde);
  // Tiny effects or means need astronomically many units (1e-200 needs "Infinity"): no answer is
  // better than a rounded or infinite one.
  if (!isCount(main.total, MAX_PLAN_UNITS)) {
    return invalid([
      {
        path: '/mde',
        message: `detecting a relative effect of ${input.mde} on a mean of ${metric.mean} with variance ${metric.variance} needs more than ${MAX_PLAN_UNITS} units; plan for a larger effect`,
      },
    ]);
  }
  if (!isCount(main.durationDays, Number.MAX_SAFE_INTEGER)) {
    return invalid([
      {
        path: '/unitsPerDay',
        message: `at ${input.unitsPerDay} units per day the ${main.total} units would take more than ${Number.MAX_SAFE_INTEGER} days`,
      },
    ]);
  }
  const result: PowerAnalysisResult = {
    readiness: 'ready',
    reasons: [],
    problems: [],
    requiredUnits: { perVariant: main.perVariant, total: main.total },
    durationDays: main.durationDays,
    assumptions,
    // Rows whose plan is past the bounds above (a smaller effect than the one asked about) are left out.
    sensitivity: SENSITIVITY_FACTORS.flatMap((f) => {
      // toPrecision: 0.05 × 0.75 is 0.0375, not 0.037500000000000006.
      const mde = Number((input.mde * f).toPrecision(12));
      if (input.metric.kind === 'proportion' && metric.mean * (1 + mde) >= 1) return [];
      const p = plan(mde);
      if (!isCount(p.total, MAX_PLAN_UNITS) || !isCount(p.durationDays, Number.MAX_SAFE_INTEGER)) return [];
      return [{ mde, requiredUnits: p.total, durationDays: p.durationDays }];
    }),
  };
  if (input.plannedUnits !== undefined) {
    const perVariant = input.plannedUnits / input.variants;
    const achieved = powerAt(metric, input.mde, perVariant, settings);
    if (!Number.isFinite(achieved))
      return invalid([
        {
          path: '/plannedUnits',
          message: `the power at ${input.plannedUnits} planned units cannot be computed for these inputs`,
        },
      ]);
    const mde = mdeAt(metric, power, perVariant, settings);
    // No detectable effect at that size is null, as is one the arithmetic cannot represent.
    result.atPlannedUnits = { power: achieved, mde: mde !== null && Number.isFinite(mde) ? mde : null };
  }
  return result;
}

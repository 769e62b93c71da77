// Per-variant sufficient statistics: what aggregation keeps of the per-subject values, and all the
// analysis needs. Sums merge by addition, so partial aggregates (per bucket, per process) combine.
// Variances follow gbstats (packages/stats/gbstats/models/statistics.py): sample variance with
// n − 1 for means, p(1 − p) for proportions, the delta method for ratios.

/** Count, sum and sum of squares of one per-subject quantity. */
export interface Moments {
  n: number;
  sum: number;
  sumSquares: number;
}

/** A metric whose per-subject value is a number (count, mean) or 0/1 (proportion). */
export interface SampleStatistic extends Moments {
  kind: 'mean' | 'proportion';
}

/** A ratio metric: Σ numerator / Σ denominator over subjects, with the cross sum Σ(m·d). */
export interface RatioStatistic {
  kind: 'ratio';
  n: number;
  numerator: Moments;
  denominator: Moments;
  sumProducts: number;
}

/** CUPED: the in-experiment value (post) and the pre-exposure value (pre) of each subject, and Σ(post·pre). */
export interface CupedStatistic {
  kind: 'cuped';
  n: number;
  metric: 'mean' | 'proportion';
  post: Moments;
  pre: Moments;
  sumProducts: number;
}

/**
 * CUPED for a ratio metric: numerator and denominator after exposure (post) and before (pre), and the
 * six cross sums of the four per-subject quantities.
 */
export interface CupedRatioStatistic {
  kind: 'cupedRatio';
  n: number;
  numeratorPost: Moments;
  denominatorPost: Moments;
  numeratorPre: Moments;
  denominatorPre: Moments;
  sums: {
    numeratorPostDenominatorPost: number;
    numeratorPostNumeratorPre: number;
    numeratorPostDenominatorPre: number;
    numeratorPreDenominatorPost: number;
    denominatorPostDenominatorPre: number;
    numeratorPreDenominatorPre: number;
  };
}

export type VariantStatistic = SampleStatistic | RatioStatistic | CupedStatistic | CupedRatioStatistic;

export function emptyMoments(): Moments {
  return { n: 0, sum: 0, sumSquares: 0 };
}

export function addMoments(a: Moments, b: Moments): Moments {
  return { n: a.n + b.n, sum: a.sum + b.sum, sumSquares: a.sumSquares + b.sumSquares };
}

/** Adds one subject's value. */
export function observe(m: Moments, y: number): Moments {
  return { n: m.n + 1, sum: m.sum + y, sumSquares: m.sumSquares + y * y };
}

export function momentsOf(values: readonly number[]): Moments {
  return values.reduce(observe, emptyMoments());
}

export function sampleStatistic(kind: 'mean' | 'proportion', values: readonly number[]): SampleStatistic {
  return { kind, ...momentsOf(values) };
}

export function ratioStatistic(pairs: readonly { numerator: number; denominator: number }[]): RatioStatistic {
  return {
    kind: 'ratio',
    n: pairs.length,
    numerator: momentsOf(pairs.map((p) => p.numerator)),
    denominator: momentsOf(pairs.map((p) => p.denominator)),
    sumProducts: pairs.reduce((s, p) => s + p.numerator * p.denominator, 0),
  };
}

export function cupedStatistic(
  metric: 'mean' | 'proportion',
  pairs: readonly { post: number; pre: number }[],
): CupedStatistic {
  return {
    kind: 'cuped',
    metric,
    n: pairs.length,
    post: momentsOf(pairs.map((p) => p.post)),
    pre: momentsOf(pairs.map((p) => p.pre)),
    sumProducts: pairs.reduce((s, p) => s + p.post * p.pre, 0),
  };
}

export interface CupedRatioObservation {
  numeratorPost: number;
  denominatorPost: number;
  numeratorPre: number;
  denominatorPre: number;
}

export function cupedRatioStatistic(rows: readonly CupedRatioObservation[]): CupedRatioStatistic {
  const sum = (f: (r: CupedRatioObservation) => number) => rows.reduce((s, r) => s + f(r), 0);
  return {
    kind: 'cupedRatio',
    n: rows.length,
    numeratorPost: momentsOf(rows.map((r) => r.numeratorPost)),
    denominatorPost: momentsOf(rows.map((r) => r.denominatorPost)),
    numeratorPre: momentsOf(rows.map((r) => r.numeratorPre)),
    denominatorPre: momentsOf(rows.map((r) => r.denominatorPre)),
    sums: {
      numeratorPostDenominatorPost: sum((r) => r.numeratorPost * r.denominatorPost),
      numeratorPostNumeratorPre: sum((r) => r.numeratorPost * r.numeratorPre),
      numeratorPostDenominatorPre: sum((r) => r.numeratorPost * r.denominatorPre),
      numeratorPreDenominatorPost: sum((r) => r.numeratorPre * r.denominatorPost),
      denominatorPostDenominatorPre: sum((r) => r.denominatorPost * r.denominatorPre),
      numeratorPreDenominatorPre: sum((r) => r.numeratorPre * r.denominatorPre),
    },
  };
}

/** The post-exposure ratio alone (what CUPED reverts to without pre-exposure variation). */
export function postRatioOf(s: CupedRatioStatistic): RatioStatistic {
  return {
    kind: 'ratio',
    n: s.n,
    numerator: s.numeratorPost,
    denominator: s.denominatorPost,
    sumProducts: s.sums.numeratorPostDenominatorPost,
  };
}

/** Merges two partial aggregates of the same variant and metric. */
export function mergeStatistics<S extends VariantStatistic>(a: S, b: S): S {
  if (a.kind !== b.kind) throw new Error(`cannot merge ${a.kind} with ${b.kind} statistics`);
  switch (a.kind) {
    case 'mean':
    case 'proportion':
      return { kind: a.kind, ...addMoments(a, b as SampleStatistic) } as S;
    case 'ratio': {
      const r = b as RatioStatistic;
      return {
        kind: 'ratio',
        n: a.n + r.n,
        numerator: addMoments(a.numerator, r.numerator),
        denominator: addMoments(a.denominator, r.denominator),
        sumProducts: a.sumProducts + r.sumProducts,
      } as S;
    }
    case 'cuped': {
      const c = b as CupedStatistic;
      return {
        kind: 'cuped',
        metric: a.metric,
        n: a.n + c.n,
        post: addMoments(a.post, c.post),
        pre: addMoments(a.pre, c.pre),
        sumProducts: a.sumProducts + c.sumProducts,
      } as S;
    }
    case 'cupedRatio': {
      const c = b as CupedRatioStatistic;
      const sums = Object.fromEntries(
        Object.entries(a.sums).map(([k, v]) => [k, v + c.sums[k as keyof CupedRatioStatistic['sums']]]),
      ) as CupedRatioStatistic['sums'];
      return {
        kind: 'cupedRatio',
        n: a.n + c.n,
        numeratorPost: addMoments(a.numeratorPost, c.numeratorPost),
        denominatorPost: addMoments(a.denominatorPost, c.denominatorPost),
        numeratorPre: addMoments(a.numeratorPre, c.numeratorPre),
        denominatorPre: addMoments(a.denominatorPre, c.denominatorPre),
        sums,
      } as S;
    }
  }
}

export function meanOf(m: Moments): number {
  return m.n === 0 ? 0 : m.sum / m.n;
}

/** Sample variance (n − 1) of a numeric quantity; p(1 − p) when it is 0/1 (gbstats ProportionStatistic). */
export function varianceOf(m: Moments, kind: 'mean' | 'proportion'): number {
  if (kind === 'proportion') {
    const p = meanOf(m);
    return p * (1 - p);
  }
  if (m.n <= 1) return 0;
  return (m.sumSquares - (m.sum * m.sum) / m.n) / (m.n - 1);
}

/** Covariance of two per-subject quantities from their sums and Σ(a·b) (gbstats compute_covariance). */
export function covarianceOf(
  n: number,
  a: Moments,
  b: Moments,
  sumProducts: number,
  kind: 'mean' | 'proportion',
): number {
  if (n <= 1) return 0;
  if (kind === 'proportion') return sumProducts / n - (a.sum * b.sum) / (n * n);
  return (sumProducts - (a.sum * b.sum) / n) / (n - 1);
}

/**
 * Var(M/D) by the delta method for numerator M and denominator D with the given means, variances
 * and covariance (gbstats utils.variance_of_ratios).
 */
export function varianceOfRatio(meanM: number, varM: number, meanD: number, varD: number, covMD: number): number {
  if (meanD === 0) return 0;
  return varM / meanD ** 2 + (varD * meanM ** 2) / meanD ** 4 - (2 * covMD * meanM) / meanD ** 3;
}

/** Mean and per-subject variance of a ratio metric (gbstats RatioStatistic). */
export function ratioMoments(s: RatioStatistic): { mean: number; variance: number } {
  const mean = s.denominator.sum === 0 ? 0 : s.numerator.sum / s.denominator.sum;
  if (s.n <= 1 || meanOf(s.denominator) === 0) return { mean, variance: 0 };
  const variance = varianceOfRatio(
    meanOf(s.numerator),
    varianceOf(s.numerator, 'mean'),
    meanOf(s.denominator),
    varianceOf(s.denominator, 'mean'),
    covarianceOf(s.n, s.numerator, s.denominator, s.sumProducts, 'mean'),
  );
  return { mean, variance };
}

/** The numbers a statistic holds (counts, sums, cross sums), in no particular order. */
function numbersOf(s: VariantStatistic): number[] {
  switch (s.kind) {
    case 'mean':
    case 'proportion':
      return [s.n, s.sum, s.sumSquares];
    case 'ratio':
      return [
        s.n,
        s.numerator.n,
        s.numerator.sum,
        s.numerator.sumSquares,
        s.denominator.n,
        s.denominator.sum,
        s.denominator.sumSquares,
        s.sumProducts,
      ];
    case 'cuped':
      return [s.n, s.post.n, s.post.sum, s.post.sumSquares, s.pre.n, s.pre.sum, s.pre.sumSquares, s.sumProducts];
    case 'cupedRatio':
      return [
        s.n,
        ...[s.numeratorPost, s.denominatorPost, s.numeratorPre, s.denominatorPre].flatMap((m) => [
          m.n,
          m.sum,
          m.sumSquares,
        ]),
        ...Object.values(s.sums),
      ];
  }
}

/**
 * Whether every number of a statistic, and of what a results page shows of it, is finite: a sum that
 * overflowed (or a value that was never a number, as an aggregate pinned from Infinity holds null)
 * would otherwise read as 0 and silently zero a variant.
 */
export function isFiniteStatistic(s: VariantStatistic): boolean {
  if (!numbersOf(s).every((x) => typeof x === 'number' && Number.isFinite(x))) return false;
  const shown = describeStatistic(s);
  return Number.isFinite(shown.mean) && Number.isFinite(shown.variance);
}

/** What a results page shows of a variant's metric: units, mean and per-unit variance (unadjusted). */
export function describeStatistic(s: VariantStatistic): { n: number; mean: number; variance: number } {
  switch (s.kind) {
    case 'mean':
    case 'proportion':
      return { n: s.n, mean: meanOf(s), variance: varianceOf(s, s.kind) };
    case 'ratio':
      return { n: s.n, ...ratioMoments(s) };
    case 'cuped':
      return { n: s.n, mean: meanOf(s.post), variance: varianceOf(s.post, s.metric) };
    case 'cupedRatio':
      return { n: s.n, ...ratioMoments(postRatioOf(s)) };
  }
}

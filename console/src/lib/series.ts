// Insight rows → one series per variant, keeping suppressed cells apart from zeros (pure:
// unit-tested in series.test.ts). A suppressed cell has every measure null: it is drawn as
// "suppressed", never as 0.

export interface InsightRow {
  bucketStart: string;
  dimensions: Record<string, string | null | undefined>;
  measures: Record<string, number | null | undefined>;
}

export interface SeriesPoint {
  bucketStart: string;
  /** null when the cell was suppressed (fewer subjects than the minimum cell). */
  value: number | null;
  suppressed: boolean;
}

export interface Series {
  variant: string;
  points: SeriesPoint[];
}

/** The starts of every bucket of a window at a grain, as the API writes them (UTC, milliseconds). */
export function bucketsBetween(from: string, to: string, grain: 'hour' | 'day'): string[] {
  const step = grain === 'hour' ? 3_600_000 : 86_400_000;
  const start = Math.floor(Date.parse(from) / step) * step;
  const end = Date.parse(to);
  const out: string[] = [];
  for (let t = start; t < end && out.length < 2400; t += step) out.push(new Date(t).toISOString());
  return out;
}

/**
 * Every bucket (those of `window` when given, so hours without events show as zero; else those of
 * the answer), sorted, and for each variant its value (or suppression) in each.
 */
export function seriesByVariant(
  rows: InsightRow[],
  measure: string,
  window?: { from: string; to: string; grain: 'hour' | 'day' },
): { buckets: string[]; series: Series[] } {
  const buckets = [
    ...new Set([
      ...(window ? bucketsBetween(window.from, window.to, window.grain) : []),
      ...rows.map((r) => r.bucketStart),
    ]),
  ].sort();
  const byVariant = new Map<string, Map<string, SeriesPoint>>();
  for (const row of rows) {
    const variant = row.dimensions.variant ?? '(no variant)';
    const suppressed = Object.values(row.measures).every((v) => v === null);
    const raw = row.measures[measure];
    const point: SeriesPoint = { bucketStart: row.bucketStart, value: suppressed ? null : (raw ?? 0), suppressed };
    if (!byVariant.has(variant)) byVariant.set(variant, new Map());
    byVariant.get(variant)!.set(row.bucketStart, point);
  }
  const series = [...byVariant.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([variant, points]) => ({
      variant,
      // A bucket without a row had no events of the variant: a true zero.
      points: buckets.map((bucketStart) => points.get(bucketStart) ?? { bucketStart, value: 0, suppressed: false }),
    }));
  return { buckets, series };
}

/** The domain of an interval plot: every interval's ends and zero, padded by a tenth. */
export function intervalDomain(intervals: [number, number][]): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const [a, b] of intervals) {
    if (Number.isFinite(a)) lo = Math.min(lo, a);
    if (Number.isFinite(b)) hi = Math.max(hi, b);
  }
  if (lo === hi) return [-1, 1];
  const pad = (hi - lo) * 0.1;
  return [lo - pad, hi + pad];
}

/** Where an interval stands against zero: the reading the results page writes beside each bar. */
export function intervalReading(ci: [number, number]): 'above zero' | 'below zero' | 'includes zero' {
  if (ci[0] > 0) return 'above zero';
  if (ci[1] < 0) return 'below zero';
  return 'includes zero';
}

// Health checks of an experiment's traffic. Sample-ratio mismatch: Pearson's chi-square of the
// observed units against the configured weights (GrowthBook checkSrm, packages/back-end/src/util/
// stats.ts; gbstats utils.check_srm), unhealthy below p = 0.001 once there are on average 8 units
// per variant (GrowthBook DEFAULT_SRM_THRESHOLD and DEFAULT_SRM_MINIMINUM_COUNT_PER_VARIATION,
// packages/shared/src/constants.ts; getSRMHealthData in packages/shared/src/health/health.ts).
// Multiple exposures: unhealthy from 1 % of subjects once 10 are seen (the same constants file).
import { chiSquareSurvival } from './distributions.js';

export type HealthStatus = 'healthy' | 'unhealthy' | 'not_enough_data';

export const SRM_P_VALUE_THRESHOLD = 0.001;
export const SRM_MINIMUM_UNITS_PER_VARIANT = 8;
export const MULTIPLE_EXPOSURES_MINIMUM_UNITS = 10;
export const MULTIPLE_EXPOSURES_MAXIMUM_RATE = 0.01;

export interface SrmResult {
  chiSquare: number;
  degreesOfFreedom: number;
  pValue: number;
  status: HealthStatus;
}

/**
 * χ² = Σ (oᵢ − eᵢ)² / eᵢ with eᵢ = wᵢ / Σw · Σo over variants with a positive weight, and its upper
 * tail with k − 1 degrees of freedom. Fewer than two weighted variants, or no units, give p = 1.
 */
export function sampleRatioMismatch(units: readonly number[], weights: readonly number[]): SrmResult {
  const cells: [number, number][] = [];
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    const o = units[i];
    if (!(w > 0) || o === undefined) continue;
    cells.push([o, w]);
  }
  const totalUnits = cells.reduce((s, [o]) => s + o, 0);
  const totalWeight = cells.reduce((s, [, w]) => s + w, 0);
  const degreesOfFreedom = Math.max(0, cells.length - 1);
  if (cells.length < 2 || totalUnits === 0) {
    return { chiSquare: 0, degreesOfFreedom, pValue: 1, status: cells.length < 2 ? 'healthy' : 'not_enough_data' };
  }
  let chiSquare = 0;
  for (const [o, w] of cells) {
    const e = (w / totalWeight) * totalUnits;
    chiSquare += (o - e) ** 2 / e;
  }
  const pValue = chiSquareSurvival(chiSquare, degreesOfFreedom);
  const status: HealthStatus =
    totalUnits < cells.length * SRM_MINIMUM_UNITS_PER_VARIANT
      ? 'not_enough_data'
      : pValue < SRM_P_VALUE_THRESHOLD
        ? 'unhealthy'
        : 'healthy';
  return { chiSquare, degreesOfFreedom, pValue, status };
}

export interface MultipleExposuresResult {
  /** Subjects seen in more than one variant (excluded from the analysis). */
  count: number;
  /** count / (analysed subjects + count). */
  rate: number;
  status: HealthStatus;
}

export function multipleExposures(count: number, analysedUnits: number): MultipleExposuresResult {
  const total = analysedUnits + count;
  const rate = total === 0 ? 0 : count / total;
  const status: HealthStatus =
    total < MULTIPLE_EXPOSURES_MINIMUM_UNITS
      ? 'not_enough_data'
      : rate >= MULTIPLE_EXPOSURES_MAXIMUM_RATE
        ? 'unhealthy'
        : 'healthy';
  return { count, rate, status };
}

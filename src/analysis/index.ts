// descriptive-v1: the pure statistics of experiment analysis (no I/O, like @ensign/engine).
export * from './sufficient-statistics.js';
export { cupedRatioTheta } from './cuped-ratio.js';
export { cupedTheta, differenceVariance, effectMoments, type EffectMoments, type EffectMomentsResult, type EffectScale, type EffectUnavailable } from './effects.js';
export {
  DEFAULT_SEQUENTIAL_TUNING,
  fixedHorizonComparison,
  fixedHorizonEffect,
  sequentialComparison,
  sequentialEffect,
  sequentialHalfWidth,
  sequentialRho,
  type ComparisonResult,
  type EffectResult,
} from './inference.js';
export * from './health.js';
export * from './power.js';
export * from './decision.js';
export * from './analyze.js';
export { chiSquareSurvival, standardNormalCdf, standardNormalQuantile, studentTCdf, studentTQuantile, twoSidedTPValue } from './distributions.js';

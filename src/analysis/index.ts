// descriptive-v1: the pure statistics of experiment analysis (no I/O, like @ensign/engine).
export * from './sufficient-statistics.js';
export { differenceVariance } from './effects.js';
export { fixedHorizonComparison, sequentialComparison, type ComparisonResult, type EffectResult } from './inference.js';
export * from './health.js';
export * from './power.js';
export * from './decision.js';
export * from './analyze.js';
export { chiSquareSurvival } from './distributions.js';

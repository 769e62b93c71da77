// `@ensign/engine/core`: the whole public surface of the evaluation engine, without a regex engine
// installed (see installRegexEngine). Pure: no I/O, no timers, no globals beyond ECMAScript 2022
// and TextEncoder; shared by the server, the SDK and the OpenFeature providers.
export type {
  Condition,
  Dependency,
  ErrorCode,
  EvaluationContext,
  EvaluationResult,
  ExperimentDetail,
  ExperimentReason,
  FallbackClass,
  FlagDefinition,
  FlagType,
  Operator,
  Reason,
  Rollout,
  Rule,
  RuleServe,
  Variant,
} from './model.js';
export {
  ERROR_CODES,
  EXPERIMENT_REASONS,
  FALLBACK_CLASSES,
  FLAG_TYPES,
  OPERATORS,
  REASONS,
  withFlagDefaults,
} from './model.js';
export { variantSaltOf, type ServedExperiment } from './experiment-model.js';
export { compileAssignment, experimentFits, type Assignment } from './compile-experiment.js';

export {
  BUCKET_COUNT,
  bucketOf,
  createBucketer,
  rolloutThreshold,
  variantBounds,
  variantIndexOf,
} from './bucketing.js';
export type { Bucketer } from './bucketing.js';

export { validateFlagDefinition, parseFlagDefinition, MAX_METADATA_BYTES } from './validate.js';
export type { ParseResult } from './validate.js';
export { validateDependencyGraph, validateFlagSet, MAX_DEPENDENCY_DEPTH } from './dependency-graph.js';
export type { ValidationIssue } from './validation-issue.js';

export { compileFlagSet } from './compile.js';
export { compileValidatedFlagSet } from './compile-set.js';
export type { CompiledFlagSet } from './compile-set.js';
export { ConfigInvalidError } from './config-invalid-error.js';
export { configInvalidResult, errorResult, flagNotFoundResult } from './results.js';
export { validateExperimentFields, MIN_EXPERIMENT_VARIANTS, MAX_EXPERIMENT_VARIANTS } from './validate-experiment.js';

export { installRegexEngine, installedRegexEngine, needsRegexEngine, MAX_REGEX_LENGTH } from './targeting-regex.js';
export type { RegexEngine, TargetingRegex } from './targeting-regex.js';

export { CORE_SCHEMA_VERSION, compileDocument, flagDefinitionsOf } from './document.js';
export { compileServedDocument } from './served-document.js';
export type { CoreAudience, CoreDelivery, CoreDocument, CoreFlag, CorePrivacy } from './document.js';

export {
  experimentMetadata,
  flattenMetadata,
  openFeatureReason,
  resolutionMetadata,
  toOpenFeature,
} from './openfeature.js';
export type { FlagMetadata, OpenFeatureDialect, OpenFeatureReason, OpenFeatureResolution } from './openfeature.js';

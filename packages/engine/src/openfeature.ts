// Engine results in OpenFeature's terms: reason, error code, variant and flag metadata. One
// definition for the server's OFREP routes, the SDK and the OpenFeature providers, so a flag
// resolves alike whether it is evaluated remotely or in the application.
//
// Two dialects. `openfeature` (the providers) keeps every reason and error code OpenFeature defines.
// `ofrep` narrows them to OFREP 0.3.0's enums: its success reasons lack DEFAULT (served as STATIC,
// the flag's configured value), and its error codes lack TYPE_MISMATCH (OFREP requests carry no
// expected type, so only a local caller can cause one; it becomes GENERAL there).
import type { ErrorCode, EvaluationResult, ExperimentDetail, Reason } from './model.js';

/** OpenFeature flag metadata: flat, with string, number or boolean values only. */
export type FlagMetadata = Readonly<Record<string, string | number | boolean>>;

export type OpenFeatureDialect = 'openfeature' | 'ofrep';

/** The OpenFeature resolution reasons a result maps to (ERROR on failures). */
export type OpenFeatureReason = 'STATIC' | 'DEFAULT' | 'TARGETING_MATCH' | 'SPLIT' | 'DISABLED' | 'ERROR';

/** A resolution as OpenFeature's ResolutionDetails holds it. */
export interface OpenFeatureResolution {
  readonly key: string;
  /** `undefined` exactly when `reason` is ERROR: the application's default then applies. */
  readonly value: unknown;
  readonly variant?: string;
  readonly reason: OpenFeatureReason;
  readonly errorCode?: ErrorCode;
  readonly errorMessage?: string;
  /** The flag's flat metadata, with the experiment's assignment added on a flag that runs one
   * (see experimentMetadata); undefined when there is none. */
  readonly flagMetadata?: FlagMetadata;
}

/** Error codes each dialect may carry; the others become GENERAL. */
const DIALECT_ERRORS: Record<OpenFeatureDialect, ReadonlySet<ErrorCode>> = {
  openfeature: new Set<ErrorCode>([
    'PROVIDER_NOT_READY',
    'FLAG_NOT_FOUND',
    'PARSE_ERROR',
    'TYPE_MISMATCH',
    'TARGETING_KEY_MISSING',
    'INVALID_CONTEXT',
    'GENERAL',
  ]),
  ofrep: new Set<ErrorCode>(['FLAG_NOT_FOUND', 'PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL']),
};

const DIALECT_REASONS: Record<OpenFeatureDialect, Record<Exclude<Reason, 'ERROR'>, OpenFeatureReason>> = {
  openfeature: {
    STATIC: 'STATIC',
    DEFAULT: 'DEFAULT',
    TARGETING_MATCH: 'TARGETING_MATCH',
    SPLIT: 'SPLIT',
    DISABLED: 'DISABLED',
  },
  ofrep: {
    STATIC: 'STATIC',
    DEFAULT: 'STATIC',
    TARGETING_MATCH: 'TARGETING_MATCH',
    SPLIT: 'SPLIT',
    DISABLED: 'DISABLED',
  },
};

/** The reason of a successful result in a dialect. */
export function openFeatureReason(reason: Reason, dialect: OpenFeatureDialect = 'openfeature'): OpenFeatureReason {
  return reason === 'ERROR' ? 'ERROR' : DIALECT_REASONS[dialect][reason];
}

/**
 * A flag's metadata as OpenFeature carries it: only string, finite number and boolean values (nested
 * objects, arrays and null have no representation there), and only the keys in `allowed` when given
 * (a client audience's privacy.clientMetadataKeys). Undefined when nothing is left.
 */
export function flattenMetadata(
  metadata: Readonly<Record<string, unknown>>,
  allowed: ReadonlySet<string> | null = null,
): FlagMetadata | undefined {
  const out: Record<string, string | number | boolean> = {};
  let any = false;
  for (const name of Object.keys(metadata)) {
    if (allowed !== null && !allowed.has(name)) continue;
    const value = metadata[name];
    if (
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      out[name] = value;
      any = true;
    }
  }
  return any ? Object.freeze(out) : undefined;
}

/** The experiment's assignment as flat metadata keys (OpenFeature metadata has no nesting). */
export function experimentMetadata(experiment: ExperimentDetail): FlagMetadata {
  return {
    experimentId: experiment.id,
    iterationId: experiment.iterationId,
    iterationRevision: experiment.iterationRevision,
    inExperiment: experiment.inExperiment,
  };
}

/** The metadata of one result: the flag's, plus its experiment assignment when there is one. */
export function resolutionMetadata(
  result: EvaluationResult,
  flagMetadata: FlagMetadata | undefined,
): FlagMetadata | undefined {
  if (result.experiment === undefined) return flagMetadata;
  return { ...flagMetadata, ...experimentMetadata(result.experiment) };
}

/**
 * Maps an engine result to OpenFeature. Beyond the reason and error code names, one rule changes
 * the outcome: a result the engine served without a targeting key where one was needed (fallback
 * class targeting_key_missing: the flag's value, reason DEFAULT) becomes the error
 * TARGETING_KEY_MISSING, so the application's own default applies, as OpenFeature specifies.
 * Results are shared frozen objects: callers evaluating the same flags often may memoise the
 * mapping by result (except FLAG_NOT_FOUND results, which are new each time).
 */
export function toOpenFeature(
  result: EvaluationResult,
  flagMetadata?: FlagMetadata,
  dialect: OpenFeatureDialect = 'openfeature',
): OpenFeatureResolution {
  const { key } = result;
  const metadata = resolutionMetadata(result, flagMetadata);
  if (result.reason === 'ERROR') {
    const code =
      result.errorCode !== undefined && DIALECT_ERRORS[dialect].has(result.errorCode) ? result.errorCode : 'GENERAL';
    return {
      key,
      value: undefined,
      reason: 'ERROR',
      errorCode: code,
      errorMessage: result.errorMessage ?? 'the flag could not be evaluated',
      flagMetadata: metadata,
    };
  }
  if (result.fallbackClass === 'targeting_key_missing') {
    return {
      key,
      value: undefined,
      reason: 'ERROR',
      errorCode: 'TARGETING_KEY_MISSING',
      errorMessage: `flag ${JSON.stringify(key)} splits subjects by targetingKey, and the context has none`,
      flagMetadata: metadata,
    };
  }
  return {
    key,
    value: result.value,
    variant: result.variant,
    reason: openFeatureReason(result.reason, dialect),
    flagMetadata: metadata,
  };
}

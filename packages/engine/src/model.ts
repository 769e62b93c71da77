// Domain types of the evaluation engine (contract section 4). Pure data: no schemas, no storage
// shapes. The HTTP layer maps its request bodies onto these after `validateFlagDefinition`.

export const FLAG_TYPES = ['bool', 'string', 'number', 'json'] as const;
export type FlagType = (typeof FLAG_TYPES)[number];

export const OPERATORS = [
  'in',
  'notIn',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'matches',
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'semverEq',
  'semverLt',
  'semverGt',
  'before',
  'after',
  'exists',
  'notExists',
] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Condition {
  /** Dotted path into the evaluation context; `targetingKey` names the subject key. */
  attribute: string;
  operator: Operator;
  values: unknown[];
}

export interface Rollout {
  /** 0..100 with at most two decimals: p percent takes buckets below round(p × 100). */
  percentage: number;
  value: unknown;
  /** Defaults to the flag key. */
  salt?: string;
}

export interface Variant {
  key: string;
  value: unknown;
  /** 0..100 with at most two decimals; the weights of a flag sum to 100. */
  weight: number;
}

export type RuleServe = { value: unknown } | { variant: string } | { rollout: Rollout };

export interface Rule {
  id: string;
  description?: string;
  conditions: Condition[];
  serve: RuleServe;
}

/** Prerequisite: `flag` must evaluate to exactly `value` (deep equality) for targeting to run. */
export interface Dependency {
  flag: string;
  value: unknown;
}

export interface FlagDefinition {
  key: string;
  type: FlagType;
  value: unknown;
  /** The flag's off switch. When false nothing else of the flag applies: every evaluation serves
   * `offValue` with reason DISABLED. */
  enabled: boolean;
  /** Served while `enabled` is false; of the flag's type. Defaults to `value` when the flag is made. */
  offValue: unknown;
  clientEnabled: boolean;
  description: string;
  rollout: Rollout | null;
  variants: Variant[] | null;
  rules: Rule[];
  overrides: Record<string, unknown>;
  dependencies: Dependency[];
  metadata: Record<string, unknown>;
}

export interface EvaluationContext {
  targetingKey?: string;
  [attribute: string]: unknown;
}

export const EXPERIMENT_REASONS = ['assigned', 'holdout', 'not_allocated', 'not_targeted', 'layer_excluded'] as const;
export type ExperimentReason = (typeof EXPERIMENT_REASONS)[number];

/** What an evaluation says about the experiment on its flag. */
export interface ExperimentDetail {
  readonly id: string;
  readonly iterationId: string;
  readonly iterationRevision: number;
  /** The variant assigned; null when the subject is not in the experiment. */
  readonly variant: string | null;
  readonly inExperiment: boolean;
  readonly reason: ExperimentReason;
}

export const REASONS = ['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DEFAULT', 'DISABLED', 'ERROR'] as const;
export type Reason = (typeof REASONS)[number];

export const FALLBACK_CLASSES = [
  'none',
  'flag_not_found',
  'type_mismatch',
  'targeting_key_missing',
  'dependency_unmet',
  'invalid_context',
  'config_invalid',
] as const;
export type FallbackClass = (typeof FALLBACK_CLASSES)[number];

/** OpenFeature error codes. The engine itself produces FLAG_NOT_FOUND, TYPE_MISMATCH,
 * INVALID_CONTEXT and PARSE_ERROR; the others are there for the HTTP layer and the SDK. */
export const ERROR_CODES = [
  'PROVIDER_NOT_READY',
  'FLAG_NOT_FOUND',
  'PARSE_ERROR',
  'TYPE_MISMATCH',
  'TARGETING_KEY_MISSING',
  'INVALID_CONTEXT',
  'GENERAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Results are precomputed at compile time and shared between evaluations, so they are frozen:
 * never mutate one. Every result carries all nine fields (absent ones are `undefined`, which
 * JSON.stringify drops) so that V8 sees a single object shape on the hot path.
 */
export interface EvaluationResult {
  readonly key: string;
  /** `undefined` exactly when `reason` is ERROR: the caller then serves its own default. */
  readonly value: unknown;
  readonly variant?: string;
  readonly reason: Reason;
  readonly ruleId?: string;
  readonly errorCode?: ErrorCode;
  readonly errorMessage?: string;
  readonly fallbackClass: FallbackClass;
  /** Set on a flag with a running experiment: whether and how the subject is in it. */
  readonly experiment?: ExperimentDetail;
}

/** A complete definition from the required fields, with the defaults of every optional one
 * (what a newly created flag holds). Does not validate: see parseFlagDefinition. */
export function withFlagDefaults(
  fields: Partial<FlagDefinition> & Pick<FlagDefinition, 'key' | 'type' | 'value'>,
): FlagDefinition {
  const flag: FlagDefinition = {
    key: fields.key,
    type: fields.type,
    value: fields.value,
    enabled: true,
    offValue: fields.value,
    clientEnabled: false,
    description: '',
    rollout: null,
    variants: null,
    rules: [],
    overrides: {},
    dependencies: [],
    metadata: {},
  };
  // Copy only what is present: { rollout: undefined } means "absent", not "set to undefined".
  const target = flag as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) target[field] = value;
  }
  return flag;
}

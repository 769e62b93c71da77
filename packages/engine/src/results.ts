// Construction of evaluation results. Everything a flag can answer is built once at compile time
// and frozen, so the hot path returns a shared object instead of allocating one per evaluation.
import type { ErrorCode, EvaluationResult, ExperimentDetail, FallbackClass, FlagType, Reason } from './model.js';

export function makeResult(
  key: string,
  value: unknown,
  reason: Reason,
  fallbackClass: FallbackClass,
  extra: {
    variant?: string;
    ruleId?: string;
    errorCode?: ErrorCode;
    errorMessage?: string;
    experiment?: ExperimentDetail;
  } = {},
): EvaluationResult {
  // All nine fields always present, in one order: one hidden class for every result.
  return Object.freeze({
    key,
    value,
    variant: extra.variant,
    reason,
    ruleId: extra.ruleId,
    errorCode: extra.errorCode,
    errorMessage: extra.errorMessage,
    fallbackClass,
    experiment: extra.experiment,
  });
}

export function errorResult(
  key: string,
  errorCode: ErrorCode,
  fallbackClass: FallbackClass,
  errorMessage: string,
): EvaluationResult {
  return makeResult(key, undefined, 'ERROR', fallbackClass, { errorCode, errorMessage });
}

export function flagNotFoundResult(key: string): EvaluationResult {
  return errorResult(
    key,
    'FLAG_NOT_FOUND',
    'flag_not_found',
    `flag ${JSON.stringify(key)} does not exist in this environment`,
  );
}

export function typeMismatchResult(key: string, actual: FlagType, expected: FlagType): EvaluationResult {
  return errorResult(
    key,
    'TYPE_MISMATCH',
    'type_mismatch',
    `flag ${JSON.stringify(key)} is of type ${actual}, not ${expected}`,
  );
}

/** For callers whose stored configuration failed to compile (ConfigInvalidError): they cannot
 * evaluate anything in that environment until it is fixed, and say so per flag. */
export function configInvalidResult(
  key: string,
  errorMessage = 'the flag configuration of this environment is invalid',
): EvaluationResult {
  return errorResult(key, 'PARSE_ERROR', 'config_invalid', errorMessage);
}

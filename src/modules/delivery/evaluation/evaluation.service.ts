// Remote evaluation of POST /api/v1/evaluate against one environment's evaluation set. Answers are
// JSON text: a result with nothing request-specific in it (every success, and errors without a
// defaultValue) is serialised once per config version and reused by every later request.
import type { EvaluationContext, EvaluationResult, FlagType } from '@ensign/engine';
import { AppError, validationError } from '../../../platform/errors.js';
import type { EvaluationSet } from './evaluation-set.js';
import type { EvaluateBodyType } from './evaluation.schemas.js';

/** The store of serialised details (see EvaluationSet.fragments). */
const DETAIL_JSON = {};

/** The flag type a defaultValue stands for: what the caller expects to get back. */
export function expectedTypeOf(defaultValue: unknown): FlagType {
  switch (typeof defaultValue) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    default:
      return 'json';
  }
}

export function configInvalid(set: EvaluationSet): AppError {
  return new AppError(
    500,
    'config_invalid',
    `The stored configuration of this environment (version ${set.version}) cannot be compiled, so nothing can be evaluated.`,
    {
      legacyCode: 'CONFIG_INVALID',
      resolution:
        'Fix or roll back the configuration through the management API; evaluations work again from the next valid version.',
    },
  );
}

function detailOf(set: EvaluationSet, result: EvaluationResult, fallback: { value: unknown } | undefined) {
  const failed = result.reason === 'ERROR';
  return {
    key: result.key,
    value: failed ? (fallback ? fallback.value : null) : result.value,
    variant: result.variant,
    reason: result.reason,
    ruleId: result.ruleId,
    errorCode: result.errorCode,
    errorMessage: result.errorMessage,
    origin: 'remote',
    fallbackClass: result.fallbackClass,
    version: set.version,
    flagMetadata: set.metadataOf(result.key),
    experiment: result.experiment,
  };
}

function detailJson(set: EvaluationSet, result: EvaluationResult, fallback: { value: unknown } | undefined): string {
  // A missing flag's result is new each time: serialised each time, never stored.
  if ((fallback !== undefined && result.reason === 'ERROR') || result.errorCode === 'FLAG_NOT_FOUND') {
    return JSON.stringify(detailOf(set, result, fallback));
  }
  const store = set.fragments<string>(DETAIL_JSON);
  let json = store.get(result);
  if (json === undefined) {
    json = JSON.stringify(detailOf(set, result, undefined));
    store.set(result, json);
  }
  return json;
}

/**
 * The response body of one evaluate request, as JSON text. Throws 400 when flagKey and flagKeys
 * are both given and 500 (CONFIG_INVALID) when the stored configuration cannot be compiled.
 */
export function evaluateToJson(set: EvaluationSet, body: EvaluateBodyType): string {
  if (body.flagKey !== undefined && body.flagKeys !== undefined) {
    throw validationError('Send either flagKey or flagKeys, not both.', [
      { path: '/flagKeys', message: 'must be absent when flagKey is given' },
    ]);
  }
  const flags = set.flags;
  if (flags === null) throw configInvalid(set);
  const context = body.context as EvaluationContext;
  const hasDefault = Object.prototype.hasOwnProperty.call(body, 'defaultValue');
  const fallback = hasDefault ? { value: body.defaultValue } : undefined;
  const expected = hasDefault ? expectedTypeOf(body.defaultValue) : undefined;
  const one = (key: string) => detailJson(set, flags.evaluate(key, context, expected), fallback);

  if (body.flagKey !== undefined) return one(body.flagKey);
  const keys = body.flagKeys ?? set.keysFor('server');
  let results = '';
  for (let i = 0; i < keys.length; i++) results += (i === 0 ? '' : ',') + one(keys[i]!);
  return `{"version":${set.version},"results":[${results}]}`;
}

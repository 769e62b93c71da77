// Engine results in OFREP's terms (OFREP 0.3.0): a success carries key, value, reason, variant and
// flat metadata; a failure carries key, errorCode and errorDetails and the HTTP status the single
// flag route answers with. The mapping itself (reasons, error codes, the experiment's metadata keys)
// is @ensign/engine's toOpenFeature in its `ofrep` dialect, the one the SDK and the OpenFeature
// providers use too; this file adds the HTTP status and the wire form. Each result's OFREP form is
// built once per config version and audience and reused: results are shared objects, so the store
// is keyed by the result itself.
import { toOpenFeature, type EvaluationResult } from '@ensign/engine';
import type { EvaluationAudience, EvaluationSet } from '../evaluation/index.js';

export interface OfrepAnswer {
  /** 200, or the failure's status on the single-flag route (400, 404 or 500). */
  readonly status: 200 | 400 | 404 | 500;
  /** The serialised body of the single-flag route, and the item of the bulk route. */
  readonly json: string;
}

const MEMO_SPACE: Record<EvaluationAudience, object> = { server: {}, client: {} };

export function flagNotFound(key: string): OfrepAnswer {
  return failure(
    404,
    key,
    'FLAG_NOT_FOUND',
    `flag ${JSON.stringify(key)} does not exist in this environment`,
    undefined,
  );
}

function failure(
  status: OfrepAnswer['status'],
  key: string,
  errorCode: string,
  errorDetails: string,
  metadata: object | undefined,
): OfrepAnswer {
  return { status, json: JSON.stringify({ key, errorCode, errorDetails, metadata }) };
}

function answerOf(set: EvaluationSet, result: EvaluationResult, audience: EvaluationAudience): OfrepAnswer {
  const resolution = toOpenFeature(result, set.flatMetadataOf(result.key, audience), 'ofrep');
  const { key, flagMetadata: metadata } = resolution;
  if (resolution.reason === 'ERROR') {
    // INVALID_CONTEXT, TARGETING_KEY_MISSING and GENERAL (a context that could not be read) are the
    // caller's to fix. PARSE_ERROR is a stored configuration that does not compile: the server's fault.
    const status = resolution.errorCode === 'PARSE_ERROR' ? 500 : 400;
    return failure(
      status,
      key,
      resolution.errorCode ?? 'GENERAL',
      resolution.errorMessage ?? 'the flag could not be evaluated',
      metadata,
    );
  }
  return {
    status: 200,
    json: JSON.stringify({
      key,
      value: resolution.value,
      reason: resolution.reason,
      variant: resolution.variant,
      metadata,
    }),
  };
}

/** OFREP answers of one set and audience: each result's answer built once and stored with the set. */
export function ofrepAnswers(
  set: EvaluationSet,
  audience: EvaluationAudience,
): (result: EvaluationResult) => OfrepAnswer {
  const store = set.fragments<OfrepAnswer>(MEMO_SPACE[audience]);
  return (result) => {
    // A missing flag's result is new each time: never stored (the routes answer it before this).
    if (result.errorCode === 'FLAG_NOT_FOUND') return flagNotFound(result.key);
    let answer = store.get(result);
    if (answer === undefined) {
      answer = answerOf(set, result, audience);
      store.set(result, answer);
    }
    return answer;
  };
}

/** Whether a context can be evaluated at all: OFREP wants a string targetingKey when there is one. */
export function contextProblem(context: Record<string, unknown>): string | null {
  const targetingKey = context.targetingKey;
  if (targetingKey === undefined || targetingKey === null || typeof targetingKey === 'string') return null;
  return `context.targetingKey must be a string (got ${Array.isArray(targetingKey) ? 'array' : typeof targetingKey})`;
}

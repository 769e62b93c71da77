// Engine results in OFREP's terms (OFREP 0.3.0): a success carries key, value, reason, variant and
// flat metadata; a failure carries key, errorCode and errorDetails and the HTTP status the single
// flag route answers with. Each result's OFREP form is built once per config version and audience
// and reused: results are shared objects, so the store is keyed by the result itself.
import type { EvaluationResult, Reason } from '@ensign/engine';
import type { EvaluationAudience, EvaluationSet } from '../evaluation/index.js';

export interface OfrepAnswer {
  /** 200, or the failure's status on the single-flag route (400, 404 or 500). */
  readonly status: 200 | 400 | 404 | 500;
  /** The serialised body of the single-flag route, and the item of the bulk route. */
  readonly json: string;
}

/** OFREP's success reasons are STATIC, TARGETING_MATCH, SPLIT, DISABLED and UNKNOWN. The engine's
 * DEFAULT (targeting exists but nothing in it applied) serves the flag's configured value, which
 * OFREP calls STATIC; POST /api/v1/evaluate keeps the finer reason. */
const REASON: Record<Exclude<Reason, 'ERROR'>, string> = {
  STATIC: 'STATIC',
  TARGETING_MATCH: 'TARGETING_MATCH',
  SPLIT: 'SPLIT',
  DISABLED: 'DISABLED',
  DEFAULT: 'STATIC',
};

const MEMO_SPACE: Record<EvaluationAudience, object> = { server: {}, client: {} };

export function flagNotFound(key: string): OfrepAnswer {
  return failure(404, key, 'FLAG_NOT_FOUND', `flag ${JSON.stringify(key)} does not exist in this environment`, undefined);
}

function failure(status: OfrepAnswer['status'], key: string, errorCode: string, errorDetails: string, metadata: object | undefined): OfrepAnswer {
  return { status, json: JSON.stringify({ key, errorCode, errorDetails, metadata }) };
}

/** The flag's flat metadata, with the experiment's assignment as flat keys when the flag runs one
 * (OFREP metadata has no nesting): experimentId, iterationId, iterationRevision, inExperiment. */
function metadataOf(set: EvaluationSet, result: EvaluationResult, audience: EvaluationAudience) {
  const metadata = set.flatMetadataOf(result.key, audience);
  const experiment = result.experiment;
  if (experiment === undefined) return metadata;
  return {
    ...metadata,
    experimentId: experiment.id,
    iterationId: experiment.iterationId,
    iterationRevision: experiment.iterationRevision,
    inExperiment: experiment.inExperiment,
  };
}

function answerOf(set: EvaluationSet, result: EvaluationResult, audience: EvaluationAudience): OfrepAnswer {
  const { key } = result;
  const metadata = metadataOf(set, result, audience);
  if (result.reason === 'ERROR') {
    // INVALID_CONTEXT and GENERAL (a context that could not be read) are the caller's to fix.
    // PARSE_ERROR is a stored configuration that does not compile: the server's fault.
    const status = result.errorCode === 'PARSE_ERROR' ? 500 : 400;
    const code = result.errorCode === 'INVALID_CONTEXT' || result.errorCode === 'PARSE_ERROR' ? result.errorCode : 'GENERAL';
    return failure(status, key, code, result.errorMessage ?? 'the flag could not be evaluated', metadata);
  }
  if (result.fallbackClass === 'targeting_key_missing') {
    // The engine serves the flag's value to a subject without a key; OpenFeature names the case
    // TARGETING_KEY_MISSING so the application's own default applies instead.
    return failure(400, key, 'TARGETING_KEY_MISSING',
      `flag ${JSON.stringify(key)} splits subjects by targetingKey, and the context has none`, metadata);
  }
  return {
    status: 200,
    json: JSON.stringify({ key, value: result.value, reason: REASON[result.reason], variant: result.variant, metadata }),
  };
}

/** OFREP answers of one set and audience: each result's answer built once and stored with the set. */
export function ofrepAnswers(set: EvaluationSet, audience: EvaluationAudience): (result: EvaluationResult) => OfrepAnswer {
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

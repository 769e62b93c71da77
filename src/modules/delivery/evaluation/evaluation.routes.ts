// POST /api/v1/evaluate: remote evaluation with a server (sdk_) key, in the frozen legacy error
// shape of the environment-key routes. Other methods on the path answer 405 with Allow: POST.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../../platform/errors.js';
import { fastLaneRoute } from '../../../platform/fast-lane-route.js';
import type { EvaluationSet } from './evaluation-set.js';
import type { EvaluationSource } from './evaluation-source.js';
import { useContextJsonParser } from './context-json-parser.js';
import { EVALUATE_BODY_LIMIT, EvaluateBody, evaluateResponses, type EvaluateBodyType } from './evaluation.schemas.js';
import { evaluateToJson } from './evaluation.service.js';

export interface EvaluationRouteDeps {
  source: EvaluationSource;
}

const PATH = '/api/v1/evaluate';

const answerOf = (set: EvaluationSet, body: EvaluateBodyType) => ({ status: 200, body: evaluateToJson(set, body) });

const serverKeyRequired = {
  code: 'server_key_required',
  legacyCode: 'SERVER_KEY_REQUIRED',
  message:
    'Remote evaluation needs a server (sdk_) key. Browsers and other clients with pub_ keys use the OFREP routes.',
} as const;

function methodNotAllowed(method: string): AppError {
  return new AppError(405, 'method_not_allowed', `${method} is not allowed on ${PATH}.`, {
    legacyCode: 'METHOD_NOT_ALLOWED',
    resolution: 'Send the evaluation request with POST.',
    headers: { allow: 'POST' },
  });
}

export const evaluationRoutes: FastifyPluginAsyncTypebox<EvaluationRouteDeps> = async (app, { source }) => {
  // This plugin is a scope of its own: the parser applies to its routes only.
  useContextJsonParser(app);
  // Only sdk_ keys: the principal names one environment.
  // Synchronous while the environment's set is in memory, without a closure per request.
  const evaluate = fastLaneRoute({ allow: ['sdk'], wrongType: serverKeyRequired })<EvaluateBodyType>(({
    principal,
    body,
  }) => {
    const set = source.current(principal);
    return set instanceof Promise ? set.then((settled) => answerOf(settled, body)) : answerOf(set, body);
  });

  // A fast-lane route (platform/fast-lane.ts): request lines at debug, as at evaluation rates they
  // would cost more than evaluating.
  app.post(
    PATH,
    {
      bodyLimit: EVALUATE_BODY_LIMIT,
      config: { legacyErrors: true, ...evaluate.config },
      schema: {
        tags: ['evaluation'],
        operationId: 'evaluate',
        summary: 'Evaluate one, several or all flags for a context (sdk_ key)',
        description:
          "Evaluates with the environment's current configuration. Failed evaluations (missing flag, type mismatch, " +
          'invalid context) are details with reason ERROR that serve defaultValue when one is sent. Bodies over 64 KiB are refused ' +
          '(413); a stored configuration that cannot be compiled answers 500 CONFIG_INVALID; other methods answer 405.',
        security: [{ bearer: [] }],
        body: EvaluateBody,
        response: evaluateResponses,
      },
    },
    evaluate.handler,
  );

  // Undocumented on purpose: these exist only to answer 405 (documented on the POST operation).
  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: PATH,
    config: { legacyErrors: true },
    schema: { hide: true },
    handler: async (request) => {
      throw methodNotAllowed(request.method);
    },
  });
};

// The OpenFeature Remote Evaluation Protocol (OFREP 0.3.0) under /api/ofrep/v1, for sdk_ and pub_
// keys (Authorization: Bearer or X-API-Key): single-flag and bulk evaluation, and the server-sent
// event stream the bulk answer advertises. Browsers call these routes with pub_ keys, so the scope
// has the public CORS policy; errors have OFREP's shape (ofrep-errors.ts).
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { EvaluationContext } from '@ensign/engine';
import { AppError } from '../../../platform/errors.js';
import { fastLaneRoute, type FastLaneAnswer } from '../../../platform/fast-lane-route.js';
import { andThen } from '../../../platform/maybe-async.js';
import type { EnvironmentPrincipal } from '../../../platform/principal.js';
import { entityTagKeyOf, ifNoneMatchHits } from '../../../platform/entity-tag.js';
import { registerPublicCors } from '../../../platform/public-cors.js';
import type { DeliveryService } from '../config-delivery/index.js';
import type { SyncAdmission } from '../metering/index.js';
import { useContextJsonParser, type EvaluationSet, type EvaluationSource } from '../evaluation/index.js';
import { createEventHub, type EventHubOptions } from './event-streams.js';
import { createBulkAnswers } from './ofrep-bulk.js';
import { registerOfrepErrors } from './ofrep-errors.js';
import { contextProblem, flagNotFound, ofrepAnswers } from './ofrep-results.js';
import {
  bulkResponses,
  eventResponses,
  OFREP_BODY_LIMIT,
  OfrepBulkHeaders,
  OfrepBulkQuery,
  OfrepEvaluationRequest,
  OfrepEventsQuery,
  OfrepKeyParams,
  singleResponses,
  type OfrepEvaluationRequestType,
} from './ofrep.schemas.js';
import { createStreamLinks } from './stream-links.js';
import { createStreamTokens } from './stream-token.js';

export interface OfrepRouteDeps {
  source: EvaluationSource;
  /** Bulk evaluation is how client SDKs sync: each 200 and 304 counts one configuration sync, on
   * the same monthly quota and counters as the delivery routes (429 / 503 from here). */
  admit: DeliveryService['admit'];
  secret: string;
  keyRevoked: EventHubOptions['keyRevoked'];
  /** Tests shorten the heartbeat of event streams (default 15 s). */
  heartbeatMs?: number;
}

const environmentKeys = fastLaneRoute({
  allow: ['sdk', 'pub'],
  apiKeyHeader: true,
  // A valid management credential is a credential this protocol does not take: forbidden.
  wrongType: {
    code: 'forbidden',
    legacyCode: 'WRONG_KEY_TYPE',
    message: 'OFREP routes take an environment key (sdk_ or pub_).',
  },
});
export const OFREP_PREFIX = '/api/ofrep/v1';
const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];

const audienceOf = (principal: EnvironmentPrincipal) => (principal.type === 'pub' ? 'client' : 'server');
const versionOf = (etag: string | undefined) =>
  etag !== undefined && /^\d{1,15}$/.test(etag) ? Number(etag) : undefined;

export const ofrepRoutes: FastifyPluginAsyncTypebox<OfrepRouteDeps> = async (app, deps) => {
  const { source } = deps;
  const tokens = createStreamTokens(deps.secret);
  const bulkAnswers = createBulkAnswers(entityTagKeyOf(deps.secret), createStreamLinks(tokens));
  const hub = createEventHub({ source, keyRevoked: deps.keyRevoked, heartbeatMs: deps.heartbeatMs, log: app.log });
  // Open event streams would keep the server from closing: end them first.
  app.addHook('preClose', async () => hub.close());

  // Strings, not Buffers: Node then writes headers and body in one write instead of two.
  const json = (status: number, body: object): FastLaneAnswer => ({ status, body: JSON.stringify(body) });

  function single(
    principal: EnvironmentPrincipal,
    key: string,
    context: EvaluationContext,
    set: EvaluationSet,
  ): FastLaneAnswer {
    if (set.flags === null) return json(500, { key, errorCode: 'PARSE_ERROR', errorDetails: set.invalid!.message });
    const audience = audienceOf(principal);
    const answer = set.visible(key, audience)
      ? ofrepAnswers(set, audience)(set.flags.evaluate(key, context))
      : flagNotFound(key);
    return { status: answer.status, body: answer.json };
  }

  function bulk(
    principal: EnvironmentPrincipal,
    context: EvaluationContext,
    set: EvaluationSet,
    quota: SyncAdmission,
    ifNoneMatch: string | undefined,
  ): FastLaneAnswer {
    if (set.flags === null) {
      const headers = { 'x-sync-quota-limit': quota.limit, 'x-sync-quota-remaining': quota.remaining };
      return { ...json(500, { errorCode: 'PARSE_ERROR', errorDetails: set.invalid!.message }), headers };
    }
    const { body, etag } = bulkAnswers.answer(principal, set, audienceOf(principal), context);
    const headers = {
      'x-sync-quota-limit': quota.limit,
      'x-sync-quota-remaining': quota.remaining,
      etag,
      'cache-control': 'private, no-cache',
    };
    // Kilobytes of cached bytes: sent as they are (a string would be encoded on every request).
    return ifNoneMatchHits(ifNoneMatch, etag) ? { status: 304, headers } : { status: 200, headers, body };
  }

  // Both answer synchronously while the environment's set (and its sync count) are in memory.
  const evaluateFlag = environmentKeys<OfrepEvaluationRequestType, { key: string }>(
    ({ principal, params: { key }, body }) => {
      const context = body.context as EvaluationContext;
      const problem = contextProblem(context);
      if (problem) return json(400, { key, errorCode: 'INVALID_CONTEXT', errorDetails: problem });
      return andThen(source.current(principal), (set) => single(principal, key, context, set));
    },
  );

  const evaluateFlags = environmentKeys<OfrepEvaluationRequestType>(({ principal, body, query, headers }) => {
    const context = body.context as EvaluationContext;
    const problem = contextProblem(context);
    if (problem) return json(400, { errorCode: 'INVALID_CONTEXT', errorDetails: problem });
    // An event stream's refetch names the version it announced: never answer from an older one.
    const atLeast = versionOf(query.flagConfigEtag as string | undefined);
    // The set first: a sync is counted only once there is an answer to give.
    return andThen(source.current(principal, atLeast), (set) =>
      andThen(deps.admit(principal), (quota) => bulk(principal, context, set, quota, headers['if-none-match'])),
    );
  });

  await app.register(
    async (scope: FastifyInstance) => {
      // First: the scope's routes, the CORS preflight route included, render errors in OFREP's shape.
      registerOfrepErrors(scope);
      await registerPublicCors(scope);
      useContextJsonParser(scope);
      const routes = scope.withTypeProvider<TypeBoxTypeProvider>();

      routes.post(
        '/evaluate/flags/:key',
        {
          bodyLimit: OFREP_BODY_LIMIT,
          config: evaluateFlag.config,
          schema: {
            tags: ['ofrep'],
            operationId: 'ofrepEvaluateFlag',
            security,
            summary: 'OFREP: evaluate one flag for a context',
            description:
              'pub_ keys see only client-visible (clientEnabled) flags: any other key is FLAG_NOT_FOUND. A flag that splits subjects, evaluated without targetingKey, is TARGETING_KEY_MISSING.',
            params: OfrepKeyParams,
            body: OfrepEvaluationRequest,
            response: singleResponses,
          },
        },
        evaluateFlag.handler,
      );

      routes.post(
        '/evaluate/flags',
        {
          bodyLimit: OFREP_BODY_LIMIT,
          config: evaluateFlags.config,
          schema: {
            tags: ['ofrep'],
            operationId: 'ofrepEvaluateFlags',
            security,
            summary: 'OFREP: evaluate every flag for a context (ETag, 304, event stream)',
            description:
              "Answers every flag the key may see, per-flag failures included, with a strong ETag over the answer for this key and context (If-None-Match → 304). Each 200 and 304 counts one configuration sync against the environment's monthly quota (429 with Retry-After in seconds past it).",
            querystring: OfrepBulkQuery,
            headers: OfrepBulkHeaders,
            body: OfrepEvaluationRequest,
            response: bulkResponses,
          },
        },
        evaluateFlags.handler,
      );

      routes.get(
        '/events',
        {
          schema: {
            tags: ['ofrep'],
            operationId: 'ofrepEventStream',
            security: [{}],
            summary: 'OFREP event stream (server-sent events) of configuration changes',
            description:
              "Opened with the token of a bulk answer's eventStreams entry, so a browser EventSource can use it. Sends `refetchEvaluation` within a second of every configuration change of the environment (also across processes), heartbeat comments every 15 s, and ends when the token expires (24 to 48 hours) or the key is revoked. Honours Last-Event-ID.",
            querystring: OfrepEventsQuery,
            response: eventResponses,
          },
        },
        async (request, reply) => {
          const grant = request.query.token === undefined ? null : tokens.verify(request.query.token);
          if (grant === null || (await deps.keyRevoked(grant))) {
            throw new AppError(
              401,
              'unauthorized',
              'The event stream token is missing, invalid or expired, or its key was revoked.',
              {
                legacyCode: request.query.token === undefined ? 'MISSING_CREDENTIAL' : 'INVALID_CREDENTIAL',
                resolution: 'Evaluate the flags again (bulk) and connect to the event stream of the new answer.',
              },
            );
          }
          const set = await source.current(grant);
          const lastEventId = versionOf(request.headers['last-event-id'] as string | undefined);
          reply.hijack();
          hub.open(grant, reply.raw, reply.getHeaders(), set.version, lastEventId);
        },
      );
    },
    { prefix: OFREP_PREFIX },
  );
};

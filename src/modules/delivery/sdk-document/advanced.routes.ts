// GET /api/v1/advanced-config (core schema v1), POST /api/v1/advanced-config/impact and
// POST /api/v1/advanced-config/inspect. The GET is a delivery hot path for environment keys: a
// snapshot lookup, an in-memory count, a string compare for 304, and prebuilt bytes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../../../platform/authenticate.js';
import type { EnvironmentPrincipal } from '../../../platform/principal.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import { ifNoneMatchHits } from '../../../platform/entity-tag.js';
import { registerPublicCors } from '../../../platform/public-cors.js';
import {
  AdvancedConfigHeaders,
  AdvancedConfigQuery,
  advancedConfigResponses,
  ImpactBody,
  ImpactResponse,
  INSPECT_BODY_LIMIT,
  InspectBody,
  InspectResponse,
} from './advanced.schemas.js';
import type { AdvancedService, DocumentRequest } from './advanced.service.js';
import { ADVANCED_ROUTE } from './compiled-document.js';

/** The header naming the change stream of an environment key's environment. */
export const STREAM_HEADER = 'x-ensign-event-stream';

export interface AdvancedRouteDeps {
  advanced: AdvancedService;
  /** The change stream's address for an environment key (X-Ensign-Event-Stream, decision 0044). */
  streamLink?: (principal: EnvironmentPrincipal) => string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };

export const advancedRoutes: FastifyPluginAsyncTypebox<AdvancedRouteDeps> = async (app, { advanced, streamLink }) => {
  async function serve(request: FastifyRequest, reply: FastifyReply, wanted: DocumentRequest) {
    const found = advanced.document(wanted);
    const document = found instanceof Promise ? await found : found;
    // Counted only once the document can be served: a 500 is not a sync.
    if (wanted.meteredBy) {
      const counted = advanced.admit(wanted.meteredBy);
      const quota = counted instanceof Promise ? await counted : counted;
      reply.headers({ 'x-sync-quota-limit': quota.limit, 'x-sync-quota-remaining': quota.remaining });
    }
    const { etag, body } = document.forCredential(wanted.credentialId);
    reply.headers({ etag, 'cache-control': 'private, no-cache' });
    // Environment keys learn where the change stream is: a header, not a field, so the document's
    // bytes and tag stay the same for every key of the environment.
    const principal = principalOf(request);
    if (streamLink !== undefined && (principal.type === 'sdk' || principal.type === 'pub'))
      reply.header(STREAM_HEADER, streamLink(principal));
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type(JSON_TYPE).send(body);
  }

  // pub_ keys read their projection from browsers: the GET lives in a scope of its own with CORS.
  await app.register(
    async (scope: FastifyInstance) => {
      await registerPublicCors(scope);
      scope.get(
        '',
        {
          config: { auth: { allow: ['sdk', 'pub', 'cli', 'admin'] } },
          schema: {
            tags: ['advanced'],
            operationId: 'getAdvancedConfig',
            summary: 'The composed configuration document, core schema v1',
            description:
              'sdk_ keys get the server document of their environment and pub_ keys its client projection (client-visible flags and the flags they depend on; no overrides, no rule reading a private attribute, only the metadata keys in privacy.clientMetadataKeys); both count one sync per 200 or 304. cli_ and admin_ credentials name the environment with appId and env, get the server document, and are not counted.',
            security: [{ bearer: [] }],
            querystring: AdvancedConfigQuery,
            headers: AdvancedConfigHeaders,
            response: advancedConfigResponses,
          },
        },
        async (request, reply) => {
          const query = request.query as { appId?: string; env?: string };
          const found = advanced.documentRequest(principalOf(request), query);
          return serve(request, reply, found instanceof Promise ? await found : found);
        },
      );
    },
    { prefix: ADVANCED_ROUTE },
  );

  app.post(
    '/api/v1/advanced-config/impact',
    {
      config: management,
      schema: {
        tags: ['advanced'],
        operationId: 'advancedConfigImpact',
        summary: 'What proposed flag, advanced and privacy changes would affect; nothing is applied',
        description:
          'Takes the changes PATCH /api/v1/flags/bulk takes and answers the flags they affect, the prerequisite changes, and which flags enter or leave the client projection. Invalid changes are refused with the same 400 as bulk apply, with details under /changes.',
        security: [{ bearer: [] }],
        body: ImpactBody,
        response: { 200: ImpactResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => advanced.impact(principalOf(request), request.body),
  );

  app.post(
    '/api/v1/advanced-config/inspect',
    {
      config: management,
      bodyLimit: INSPECT_BODY_LIMIT,
      schema: {
        tags: ['advanced'],
        operationId: 'inspectAdvancedConfig',
        summary: 'Validate a proposed core/v1 document against the current version; nothing is applied',
        description:
          "Answers the document's errors and warnings, its normalised form and that form's digest. baseVersion must be the current config version (409 version_conflict with metadata.currentVersion otherwise). Bodies over 64 KiB are 413.",
        security: [{ bearer: [] }],
        body: InspectBody,
        response: { 200: InspectResponse, ...errorResponses(400, 401, 403, 404, 'version_conflict', 413) },
      },
    },
    async (request) => advanced.inspect(principalOf(request), request.body),
  );
};

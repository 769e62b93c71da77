import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import { IdempotencyKeyHeaders, type IdempotencyService } from '../../../platform/idempotency.js';
import { sourceOf } from '../journal/index.js';
import type { KeysService } from './keys.service.js';
import {
  CreateKeyBody,
  CreateKeyResponse,
  ListKeysQuery,
  ListKeysResponse,
  RevokeKeyBody,
  RevokeKeyQuery,
  RevokeKeyResponse,
} from './keys.schemas.js';
import { runIdempotent } from '../../../platform/idempotent-route.js';

export interface KeysRouteDeps {
  keys: KeysService;
  idempotency: IdempotencyService;
}

const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };

export const keysRoutes: FastifyPluginAsyncTypebox<KeysRouteDeps> = async (app, { keys, idempotency }) => {
  app.get(
    '/api/v1/keys',
    {
      config: management,
      schema: {
        tags: ['keys'],
        operationId: 'listKeys',
        summary: 'List the keys of an app (never their secrets)',
        security: [{ bearer: [] }],
        querystring: ListKeysQuery,
        response: { 200: ListKeysResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ keys: await keys.list(principalOf(request), request.query.appId, request.query.env) }),
  );

  app.post(
    '/api/v1/keys',
    {
      config: management,
      schema: {
        tags: ['keys'],
        operationId: 'createKey',
        summary: 'Create a key; its token is shown once',
        security: [{ bearer: [] }],
        headers: IdempotencyKeyHeaders,
        body: CreateKeyBody,
        response: {
          201: CreateKeyResponse,
          ...errorResponses(400, 'idempotency_key_required', 401, 403, 404, ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      return runIdempotent(idempotency, request, reply, {
        fingerprint: request.body,
        statusCode: 201,
        keyRequired: true,
        containsSecrets: true,
        work: async (trx, principal) => ({ key: await keys.create(trx, principal, request.body, sourceOf(request)) }),
      });
    },
  );

  app.patch(
    '/api/v1/keys',
    {
      config: management,
      schema: {
        tags: ['keys'],
        operationId: 'revokeKey',
        summary: 'Revoke a key (irreversible)',
        security: [{ bearer: [] }],
        body: RevokeKeyBody,
        response: { 200: RevokeKeyResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ key: await keys.revoke(principalOf(request), request.body.keyId, sourceOf(request)) }),
  );

  app.delete(
    '/api/v1/keys',
    {
      config: management,
      schema: {
        tags: ['keys'],
        operationId: 'revokeKeyLegacy',
        summary: 'Revoke a key (older form of PATCH /api/v1/keys)',
        security: [{ bearer: [] }],
        querystring: RevokeKeyQuery,
        response: { 200: RevokeKeyResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ key: await keys.revoke(principalOf(request), request.query.keyId, sourceOf(request)) }),
  );
};

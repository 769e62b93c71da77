import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { inTransaction } from '../../../db/transaction.js';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import { IdempotencyKeyHeaders, type IdempotencyService } from '../../../platform/idempotency.js';
import type { UserPrincipal } from '../../../platform/principal.js';
import { sourceOf } from '../journal/index.js';
import type { AppsService } from './apps.service.js';
import {
  CreateAppBody,
  CreateAppResponse,
  ListAppsResponse,
  ListEnvsQuery,
  ListEnvsResponse,
  SetPolicyBody,
  SetPolicyResponse,
} from './apps.schemas.js';
import { runIdempotent } from '../../../platform/idempotent-route.js';

export interface AppsRouteDeps {
  db: Kysely<Database>;
  apps: AppsService;
  idempotency: IdempotencyService;
}

export const appsRoutes: FastifyPluginAsyncTypebox<AppsRouteDeps> = async (app, { db, apps, idempotency }) => {
  app.get(
    '/api/v1/apps',
    {
      config: { auth: { allow: ['cli'] } },
      schema: {
        tags: ['apps'],
        operationId: 'listApps',
        summary: 'List your apps and their environments',
        security: [{ bearer: [] }],
        response: { 200: ListAppsResponse, ...errorResponses(401) },
      },
    },
    async (request) => ({ apps: await apps.list(principalOf(request) as UserPrincipal) }),
  );

  app.post(
    '/api/v1/apps',
    {
      config: { auth: { allow: ['cli'], unscopedCliOnly: true } },
      schema: {
        tags: ['apps'],
        operationId: 'createApp',
        summary: 'Create an app with its environments, keys and admin key',
        security: [{ bearer: [] }],
        headers: IdempotencyKeyHeaders,
        body: CreateAppBody,
        response: {
          201: CreateAppResponse,
          ...errorResponses(
            400,
            'idempotency_key_required',
            401,
            404,
            'slug_conflict',
            ...IDEMPOTENCY_ERRORS,
            'app_quota_exceeded',
          ),
        },
      },
    },
    async (request, reply) => {
      return runIdempotent(idempotency, request, reply, {
        fingerprint: request.body,
        statusCode: 201,
        keyRequired: true,
        containsSecrets: true,
        work: (trx, principal) => apps.create(trx, principal as UserPrincipal, request.body, sourceOf(request)),
      });
    },
  );

  app.get(
    '/api/v1/envs',
    {
      config: { auth: { allow: ['cli', 'admin'] } },
      schema: {
        tags: ['apps'],
        operationId: 'listEnvironments',
        summary: 'List the environments of an app',
        security: [{ bearer: [] }],
        querystring: ListEnvsQuery,
        response: { 200: ListEnvsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ environments: await apps.environments(principalOf(request), request.query.appId) }),
  );

  app.patch(
    '/api/v1/envs',
    {
      config: { auth: { allow: ['cli', 'admin'] } },
      schema: {
        tags: ['apps'],
        operationId: 'setEnvironmentPolicy',
        summary: 'Set how many approvals configuration changes of an environment need (owners only)',
        security: [{ bearer: [] }],
        body: SetPolicyBody,
        response: { 200: SetPolicyResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return {
        environment: await inTransaction(db, (trx) => apps.setPolicy(trx, principal, request.body, sourceOf(request))),
      };
    },
  );
};

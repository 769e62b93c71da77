import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/authenticate.js';
import { EnvQuery, IdParams } from '../../platform/definition-schemas.js';
import { errorResponses } from '../../platform/error-schemas.js';
import type { IdempotencyService } from '../../platform/idempotency.js';
import { IDEMPOTENCY_HEADER, MANAGEMENT_AUTH, previewOrRun } from '../../platform/idempotent-route.js';
import { sourceOf } from '../journal/index.js';
import type { HoldoutsService } from './holdouts.service.js';
import { CreateHoldoutBody, HoldoutListResponse, HoldoutPatchResponse, HoldoutPreviewResponse, HoldoutResponse, PatchHoldoutBody } from './holdouts.schemas.js';

export interface HoldoutsRouteDeps {
  holdouts: HoldoutsService;
  idempotency: IdempotencyService;
}

const security = [{ bearer: [] }];

export const holdoutsRoutes: FastifyPluginAsyncTypebox<HoldoutsRouteDeps> = async (app, { holdouts, idempotency }) => {
  app.get('/api/v1/holdouts', {
    config: MANAGEMENT_AUTH,
    schema: {
      tags: ['holdouts'], operationId: 'listHoldouts', summary: 'List the holdouts of an environment', security,
      querystring: EnvQuery,
      response: { 200: HoldoutListResponse, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => ({ holdouts: await holdouts.list(principalOf(request), request.query.appId, request.query.env) }));

  app.post('/api/v1/holdouts', {
    config: MANAGEMENT_AUTH,
    schema: {
      tags: ['holdouts'], operationId: 'createHoldout', summary: 'Create a holdout that keeps a share of subjects out of the experiments naming it, or preview one (dryRun)', security,
      headers: IDEMPOTENCY_HEADER,
      body: CreateHoldoutBody,
      response: { 200: HoldoutPreviewResponse, 201: HoldoutResponse, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    const { dryRun, ...input } = request.body;
    return previewOrRun(idempotency, request, reply, dryRun, async (principal) => ({ ...(await holdouts.create(null, principal, input, sourceOf(request))), id: null }), {
      route: 'POST /api/v1/holdouts', fingerprint: input, statusCode: 201,
      work: async (trx, principal) => ({ holdout: await holdouts.create(trx, principal, input, sourceOf(request)) }),
    });
  });

  app.get('/api/v1/holdouts/:id', {
    config: MANAGEMENT_AUTH,
    schema: {
      tags: ['holdouts'], operationId: 'getHoldout', summary: 'Read one holdout', security,
      params: IdParams,
      querystring: EnvQuery,
      response: { 200: HoldoutResponse, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => ({ holdout: await holdouts.get(principalOf(request), request.query.appId, request.query.env, request.params.id) }));

  app.patch('/api/v1/holdouts/:id', {
    config: MANAGEMENT_AUTH,
    schema: {
      tags: ['holdouts'], operationId: 'patchHoldout', summary: 'Change a holdout\'s name, description or percentage (version CAS), or preview the change (dryRun)', security,
      headers: IDEMPOTENCY_HEADER,
      params: IdParams,
      body: PatchHoldoutBody,
      response: { 200: HoldoutPatchResponse, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    const { dryRun, ...input } = request.body;
    return previewOrRun(idempotency, request, reply, dryRun, (principal) => holdouts.patch(null, principal, request.params.id, input, sourceOf(request)), {
      route: 'PATCH /api/v1/holdouts/{id}', fingerprint: { id: request.params.id, input }, statusCode: 200,
      work: async (trx, principal) => ({ holdout: await holdouts.patch(trx, principal, request.params.id, input, sourceOf(request)) }),
    });
  });
};

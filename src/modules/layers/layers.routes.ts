import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/authenticate.js';
import { EnvQuery, IdParams } from '../../platform/definition-schemas.js';
import { errorResponses } from '../../platform/error-schemas.js';
import type { IdempotencyService } from '../../platform/idempotency.js';
import { IDEMPOTENCY_HEADER, MANAGEMENT_AUTH, previewOrRun } from '../../platform/idempotent-route.js';
import { sourceOf } from '../journal/index.js';
import type { LayersService } from './layers.service.js';
import { CreateLayerBody, LayerListResponse, LayerPatchResponse, LayerPreviewResponse, LayerResponse, PatchLayerBody } from './layers.schemas.js';

export interface LayersRouteDeps {
  layers: LayersService;
  idempotency: IdempotencyService;
}

const security = [{ bearer: [] }];

export const layersRoutes: FastifyPluginAsyncTypebox<LayersRouteDeps> = async (app, { layers, idempotency }) => {
  app.get('/api/v1/layers', {
    config: MANAGEMENT_AUTH,
    schema: {
      tags: ['layers'], operationId: 'listLayers', summary: 'List the layers of an environment', security,
      querystring: EnvQuery,
      response: { 200: LayerListResponse, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => ({ layers: await layers.list(principalOf(request), request.query.appId, request.query.env) }));

  app.post('/api/v1/layers', {
    config: MANAGEMENT_AUTH,
    schema: {
      tags: ['layers'], operationId: 'createLayer', summary: 'Create a layer of mutually exclusive experiments, or preview one (dryRun)', security,
      headers: IDEMPOTENCY_HEADER,
      body: CreateLayerBody,
      response: { 200: LayerPreviewResponse, 201: LayerResponse, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    const { dryRun, ...input } = request.body;
    return previewOrRun(idempotency, request, reply, dryRun, async (principal) => ({ ...(await layers.create(null, principal, input, sourceOf(request))), id: null }), {
      route: 'POST /api/v1/layers', fingerprint: input, statusCode: 201,
      work: async (trx, principal) => ({ layer: await layers.create(trx, principal, input, sourceOf(request)) }),
    });
  });

  app.get('/api/v1/layers/:id', {
    config: MANAGEMENT_AUTH,
    schema: {
      tags: ['layers'], operationId: 'getLayer', summary: 'Read one layer with its bucket allocations', security,
      params: IdParams,
      querystring: EnvQuery,
      response: { 200: LayerResponse, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => ({ layer: await layers.get(principalOf(request), request.query.appId, request.query.env, request.params.id) }));

  app.patch('/api/v1/layers/:id', {
    config: MANAGEMENT_AUTH,
    schema: {
      tags: ['layers'], operationId: 'patchLayer', summary: 'Change a layer\'s name or description (version CAS), or preview the change (dryRun)', security,
      headers: IDEMPOTENCY_HEADER,
      params: IdParams,
      body: PatchLayerBody,
      response: { 200: LayerPatchResponse, ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    const { dryRun, ...input } = request.body;
    return previewOrRun(idempotency, request, reply, dryRun, (principal) => layers.patch(null, principal, request.params.id, input, sourceOf(request)), {
      route: 'PATCH /api/v1/layers/{id}', fingerprint: { id: request.params.id, input }, statusCode: 200,
      work: async (trx, principal) => ({ layer: await layers.patch(trx, principal, request.params.id, input, sourceOf(request)) }),
    });
  });
};

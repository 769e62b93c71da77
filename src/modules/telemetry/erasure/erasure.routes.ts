import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import { MANAGEMENT_AUTH } from '../../../platform/idempotent-route.js';
import type { ErasureService } from './erasure.service.js';
import { ErasureBody, ReceiptQuery, ReceiptResponse } from './erasure.schemas.js';
import { sourceOf } from '../../core/journal/index.js';

const security = [{ bearer: [] }];

export const erasureRoutes: FastifyPluginAsyncTypebox<{ erasure: ErasureService }> = async (app, { erasure }) => {
  app.post(
    '/api/v1/telemetry/erasures',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['erasure'],
        operationId: 'requestSubjectErasure',
        summary: "Erase a subject's telemetry; answers an opaque receipt",
        security,
        body: ErasureBody,
        response: { 202: ReceiptResponse, ...errorResponses(400, 401, 403, 404, 'service_unavailable') },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ receipt: await erasure.request(principalOf(request), request.body, sourceOf(request)) }),
  );

  app.get(
    '/api/v1/telemetry/erasures',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['erasure'],
        operationId: 'getSubjectErasure',
        summary: 'Read an erasure receipt',
        security,
        querystring: ReceiptQuery,
        response: { 200: ReceiptResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      receipt: await erasure.get(principalOf(request), request.query.appId, request.query.env, request.query.id),
    }),
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { EnvQuery, IdParams } from '../../../platform/definition-schemas.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import type { IdempotencyService } from '../../../platform/idempotency.js';
import { IDEMPOTENCY_HEADER, MANAGEMENT_AUTH, runIdempotent } from '../../../platform/idempotent-route.js';
import { sourceOf } from '../../core/journal/index.js';
import type { MetricsService } from './metrics.service.js';
import {
  CreateMetricBody,
  MetricListResponse,
  MetricQuery,
  MetricResponse,
  MetricRevisionsResponse,
  ReviseMetricBody,
} from './metrics.schemas.js';

export interface MetricsRouteDeps {
  metrics: MetricsService;
  idempotency: IdempotencyService;
}

const security = [{ bearer: [] }];

export const metricsRoutes: FastifyPluginAsyncTypebox<MetricsRouteDeps> = async (app, { metrics, idempotency }) => {
  app.get(
    '/api/v1/metrics',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['metrics'],
        operationId: 'listMetrics',
        summary: 'List the metrics of an environment (head revisions)',
        security,
        querystring: EnvQuery,
        response: { 200: MetricListResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ metrics: await metrics.list(principalOf(request), request.query.appId, request.query.env) }),
  );

  app.post(
    '/api/v1/metrics',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['metrics'],
        operationId: 'createMetric',
        summary: 'Create a metric at revision 1',
        security,
        headers: IDEMPOTENCY_HEADER,
        body: CreateMetricBody,
        response: { 201: MetricResponse, ...errorResponses(400, 401, 403, 404, 'key_conflict', ...IDEMPOTENCY_ERRORS) },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: request.body,
        statusCode: 201,
        work: async (trx, principal) => ({
          metric: await metrics.create(trx, principal, request.body, sourceOf(request)),
        }),
      }),
  );

  app.get(
    '/api/v1/metrics/:id',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['metrics'],
        operationId: 'getMetric',
        summary: 'Read the head of a metric, or exactly one revision',
        security,
        params: IdParams,
        querystring: MetricQuery,
        response: { 200: MetricResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      metric: await metrics.get(
        principalOf(request),
        request.query.appId,
        request.query.env,
        request.params.id,
        request.query.revision,
      ),
    }),
  );

  app.get(
    '/api/v1/metrics/:id/revisions',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['metrics'],
        operationId: 'listMetricRevisions',
        summary: 'Every revision of a metric, oldest first',
        security,
        params: IdParams,
        querystring: EnvQuery,
        response: { 200: MetricRevisionsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      revisions: await metrics.revisions(
        principalOf(request),
        request.query.appId,
        request.query.env,
        request.params.id,
      ),
    }),
  );

  app.post(
    '/api/v1/metrics/:id/revisions',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags: ['metrics'],
        operationId: 'reviseMetric',
        summary: 'Append a revision (compare-and-swap on revision)',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: IdParams,
        body: ReviseMetricBody,
        response: {
          200: MetricResponse,
          ...errorResponses(400, 401, 403, 404, 'version_conflict', ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: { id: request.params.id, body: request.body },
        statusCode: 200,
        work: async (trx, principal) => ({
          metric: await metrics.revise(trx, principal, request.params.id, request.body, sourceOf(request)),
        }),
      }),
  );
};

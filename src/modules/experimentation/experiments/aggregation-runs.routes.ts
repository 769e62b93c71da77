import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { EnvQuery, IdParams } from '../../../platform/definition-schemas.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import { MANAGEMENT_AUTH } from '../../../platform/idempotent-route.js';
import type { AggregationService } from './aggregation-runs.service.js';
import {
  RecomputeBody,
  RecomputeResponse,
  ResultsQuery,
  ResultsResponse,
  RunParams,
  RunResponse,
} from './aggregation-runs.schemas.js';

export interface AggregationRouteDeps {
  aggregation: AggregationService;
}

const security = [{ bearer: [] }];
const tags = ['experiments'];

export const aggregationRoutes: FastifyPluginAsyncTypebox<AggregationRouteDeps> = async (app, { aggregation }) => {
  app.get(
    '/api/v1/experiments/:id/results',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'getExperimentResults',
        summary: 'descriptive-v1 results of an iteration, from the pinned aggregate of its newest succeeded run',
        security,
        params: IdParams,
        querystring: ResultsQuery,
        response: { 200: ResultsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => aggregation.results(principalOf(request), request.params.id, request.query),
  );

  app.post(
    '/api/v1/experiments/:id/results/recompute',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'recomputeExperimentResults',
        summary: 'Queue an aggregation run of an iteration (idempotent by idempotencyKey)',
        security,
        params: IdParams,
        body: RecomputeBody,
        response: {
          200: RecomputeResponse,
          ...errorResponses(
            400,
            401,
            403,
            404,
            'watermark_mismatch',
            'raw_input_gap',
            'unsafe_recovery',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request) => aggregation.recompute(principalOf(request), request.params.id, request.body),
  );

  app.get(
    '/api/v1/experiments/:id/results/runs/:runId',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'getAggregationRun',
        summary: 'One aggregation run: state, cause, watermark, diagnostics and remediation',
        security,
        params: RunParams,
        querystring: EnvQuery,
        response: { 200: RunResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      run: await aggregation.run(principalOf(request), request.params.id, request.params.runId, request.query),
    }),
  );
};

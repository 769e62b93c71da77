import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { EnvQuery, IdParams } from '../../../platform/definition-schemas.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import type { IdempotencyService } from '../../../platform/idempotency.js';
import { IDEMPOTENCY_HEADER, MANAGEMENT_AUTH, runIdempotent } from '../../../platform/idempotent-route.js';
import type { AnalysisInputsService } from './analysis-inputs.service.js';
import {
  BaselineListResponse,
  BaselineResponse,
  CaptureBaselineBody,
  PowerAnalysisBody,
  PowerAnalysisResponse,
} from './analysis-inputs.schemas.js';

export interface AnalysisInputsRouteDeps {
  inputs: AnalysisInputsService;
  idempotency: IdempotencyService;
}

const security = [{ bearer: [] }];
const tags = ['experiments'];

export const analysisInputsRoutes: FastifyPluginAsyncTypebox<AnalysisInputsRouteDeps> = async (
  app,
  { inputs, idempotency },
) => {
  app.post(
    '/api/v1/experiments/power-analysis',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'experimentPowerAnalysis',
        summary: 'Plan an experiment: units and days to detect a relative effect, power and MDE at planned units',
        security,
        body: PowerAnalysisBody,
        response: { 200: PowerAnalysisResponse, ...errorResponses(400, 'baseline_mismatch', 401, 403, 404) },
      },
    },
    async (request) => inputs.powerAnalysis(principalOf(request), request.body),
  );

  app.post(
    '/api/v1/experiments/:id/baselines',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'captureExperimentBaseline',
        summary: 'Capture a baseline of the primary metric from telemetry or manual values',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: IdParams,
        body: CaptureBaselineBody,
        response: {
          201: BaselineResponse,
          ...errorResponses(400, 'baseline_mismatch', 401, 403, 404, 'key_conflict', ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: { id: request.params.id, body: request.body },
        statusCode: 201,
        work: async (trx, principal) => ({
          baseline: await inputs.captureBaseline(trx, principal, request.params.id, request.body),
        }),
      }),
  );

  app.get(
    '/api/v1/experiments/:id/baselines',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'listExperimentBaselines',
        summary: "List the baselines of an experiment's primary metric, newest first",
        security,
        params: IdParams,
        querystring: EnvQuery,
        response: { 200: BaselineListResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      baselines: await inputs.listBaselines(
        principalOf(request),
        request.query.appId,
        request.query.env,
        request.params.id,
      ),
    }),
  );
};

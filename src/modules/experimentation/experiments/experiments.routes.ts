import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { EnvQuery, IdParams } from '../../../platform/definition-schemas.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import type { IdempotencyService } from '../../../platform/idempotency.js';
import { IDEMPOTENCY_HEADER, MANAGEMENT_AUTH, runIdempotent } from '../../../platform/idempotent-route.js';
import { sourceOf } from '../../core/journal/index.js';
import type { ExperimentsService } from './experiments.service.js';
import {
  CreateExperimentBody,
  ExperimentListResponse,
  ExperimentResponse,
  IterateBody,
  PatchExperimentBody,
  RampBody,
  ServedChangeResponse,
  TransitionBody,
} from './experiments.schemas.js';

export interface ExperimentsRouteDeps {
  experiments: ExperimentsService;
  idempotency: IdempotencyService;
}

const security = [{ bearer: [] }];
const tags = ['experiments'];

export const experimentsRoutes: FastifyPluginAsyncTypebox<ExperimentsRouteDeps> = async (
  app,
  { experiments, idempotency },
) => {
  app.get(
    '/api/v1/experiments',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'listExperiments',
        summary: 'List the experiment definitions of an environment',
        security,
        querystring: EnvQuery,
        response: { 200: ExperimentListResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      experiments: await experiments.list(principalOf(request), request.query.appId, request.query.env),
    }),
  );

  app.post(
    '/api/v1/experiments',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'createExperiment',
        summary: 'Create an experiment in state draft at revision 1',
        security,
        headers: IDEMPOTENCY_HEADER,
        body: CreateExperimentBody,
        response: {
          201: ExperimentResponse,
          ...errorResponses(400, 401, 403, 404, 'key_conflict', 'layer_full', ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: request.body,
        statusCode: 201,
        work: async (trx, principal) => ({
          experiment: await experiments.create(trx, principal, request.body, sourceOf(request)),
        }),
      }),
  );

  app.get(
    '/api/v1/experiments/:id',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'getExperiment',
        summary: 'Read an experiment definition and its current iteration',
        security,
        params: IdParams,
        querystring: EnvQuery,
        response: { 200: ExperimentResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      experiment: await experiments.get(
        principalOf(request),
        request.query.appId,
        request.query.env,
        request.params.id,
      ),
    }),
  );

  app.patch(
    '/api/v1/experiments/:id',
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'patchExperiment',
        summary: 'Change an experiment (revision CAS); served fields only while draft',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: IdParams,
        body: PatchExperimentBody,
        response: {
          200: ExperimentResponse,
          ...errorResponses(
            400,
            401,
            403,
            404,
            'version_conflict',
            'experiment_not_draft',
            'layer_full',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: { id: request.params.id, body: request.body },
        statusCode: 200,
        work: async (trx, principal) => ({
          experiment: await experiments.patch(trx, principal, request.params.id, request.body, sourceOf(request)),
        }),
      }),
  );

  const served = [
    {
      path: 'transition',
      operationId: 'transitionExperiment',
      summary: 'Move an experiment through its lifecycle: start, pause, resume, complete, archive',
      body: TransitionBody,
      run: experiments.transition,
      errors: [],
    },
    {
      path: 'ramp',
      operationId: 'rampExperiment',
      summary: 'Change the allocation of a running or paused experiment, keeping every assigned subject in its variant',
      body: RampBody,
      run: experiments.ramp,
      errors: ['layer_full'],
    },
    {
      path: 'iterate',
      operationId: 'iterateExperiment',
      summary: 'Start a new iteration of a paused experiment with a new salt: its population is re-randomised',
      body: IterateBody,
      run: experiments.iterate,
      errors: [],
    },
  ] as const;
  for (const route of served) {
    app.post(
      `/api/v1/experiments/:id/${route.path}`,
      {
        config: MANAGEMENT_AUTH,
        schema: {
          tags,
          operationId: route.operationId,
          summary: route.summary,
          security,
          headers: IDEMPOTENCY_HEADER,
          params: IdParams,
          body: route.body,
          response: {
            200: ServedChangeResponse,
            ...errorResponses(
              400,
              401,
              403,
              'approval_required',
              404,
              'version_conflict',
              'invalid_transition',
              'invalid_state',
              'flag_in_experiment',
              ...route.errors,
              ...IDEMPOTENCY_ERRORS,
            ),
          },
        },
      },
      async (request, reply) =>
        runIdempotent(idempotency, request, reply, {
          fingerprint: { id: request.params.id, body: request.body },
          statusCode: 200,
          work: (trx, principal) =>
            (route.run as (...args: unknown[]) => Promise<unknown>)(
              trx,
              principal,
              request.params.id,
              request.body,
              sourceOf(request),
            ),
        }),
    );
  }
};

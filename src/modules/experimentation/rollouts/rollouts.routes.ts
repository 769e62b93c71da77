import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { EnvQuery, IdParams } from '../../../platform/definition-schemas.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import type { IdempotencyService } from '../../../platform/idempotency.js';
import { IDEMPOTENCY_HEADER, MANAGEMENT_AUTH, runIdempotent } from '../../../platform/idempotent-route.js';
import { sourceOf } from '../../core/journal/index.js';
import type { RolloutsService } from './rollouts.service.js';
import {
  ApproveBody,
  ApproveResponse,
  CreatePlanBody,
  PlanListResponse,
  PlanParams,
  PlanResponse,
  PreviewResponse,
  RecommendBody,
  RecommendResponse,
  TransitionBody,
} from './rollouts.schemas.js';

export interface RolloutsRouteDeps {
  rollouts: RolloutsService;
  idempotency: IdempotencyService;
}

const security = [{ bearer: [] }];
const tags = ['rollouts'];
const base = '/api/v1/experiments/:id/rollouts';

export const rolloutsRoutes: FastifyPluginAsyncTypebox<RolloutsRouteDeps> = async (app, { rollouts, idempotency }) => {
  app.post(
    base,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'createRolloutPlan',
        summary: 'Create a guarded rollout plan in draft (201), or preview it with dryRun (200, nothing stored)',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: IdParams,
        body: CreatePlanBody,
        response: {
          200: PreviewResponse,
          201: PlanResponse,
          ...errorResponses(
            400,
            401,
            403,
            'approval_required',
            404,
            'plan_id_conflict',
            'flag_missing',
            'experiment_not_started',
            'version_conflict',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      if (request.body.dryRun)
        return reply.code(200).send({
          plan: await rollouts.preview(principalOf(request), request.params.id, request.body),
          dryRun: true as const,
        });
      return runIdempotent(idempotency, request, reply, {
        fingerprint: { id: request.params.id, body: request.body },
        statusCode: 201,
        work: async (trx, principal) => ({
          plan: await rollouts.create(trx, principal, request.params.id, request.body, sourceOf(request)),
        }),
      });
    },
  );

  app.get(
    base,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'listRolloutPlans',
        summary: 'The rollout plans of an experiment, newest first (at most 100)',
        security,
        params: IdParams,
        querystring: EnvQuery,
        response: { 200: PlanListResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ plans: await rollouts.list(principalOf(request), request.params.id, request.query) }),
  );

  app.get(
    `${base}/:planId`,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'getRolloutPlan',
        summary: 'A rollout plan with its stored recommendation and history',
        security,
        params: PlanParams,
        querystring: EnvQuery,
        response: { 200: PlanResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      plan: await rollouts.get(principalOf(request), request.params.id, request.params.planId, request.query),
    }),
  );

  app.post(
    `${base}/:planId/transition`,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'transitionRolloutPlan',
        summary: 'Activate, move to a step, pause, complete or cancel a plan (a step is a new config version)',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: PlanParams,
        body: TransitionBody,
        response: {
          200: PlanResponse,
          ...errorResponses(
            400,
            401,
            403,
            'approval_required',
            404,
            'invalid_transition',
            'version_conflict',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: { ...request.params, body: request.body },
        statusCode: 200,
        work: async (trx, principal) => ({
          plan: await rollouts.transition(
            trx,
            principal,
            sourceOf(request),
            request.params.id,
            request.params.planId,
            request.body,
          ),
        }),
      }),
  );

  app.post(
    `${base}/:planId/recommend`,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'recommendRolloutStep',
        summary: 'Evaluate the guardrails and health on the newest aggregate; confirm stores the recommendation',
        security,
        params: PlanParams,
        body: RecommendBody,
        response: {
          200: RecommendResponse,
          ...errorResponses(400, 401, 403, 404, 'version_conflict', ...IDEMPOTENCY_ERRORS),
        },
      },
    },
    async (request) =>
      rollouts.recommend(
        principalOf(request),
        request.params.id,
        request.params.planId,
        request.body,
        sourceOf(request),
      ),
  );

  app.post(
    `${base}/:planId/approve`,
    {
      config: MANAGEMENT_AUTH,
      schema: {
        tags,
        operationId: 'approveRolloutRecommendation',
        summary: 'Act on the stored recommendation: proceed to the next step, pause, or roll the flag back',
        security,
        headers: IDEMPOTENCY_HEADER,
        params: PlanParams,
        body: ApproveBody,
        response: {
          200: ApproveResponse,
          ...errorResponses(
            400,
            401,
            403,
            'capability_missing',
            'approval_required',
            404,
            'recommendation_mismatch',
            'recommendation_not_actionable',
            'version_conflict',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      runIdempotent(idempotency, request, reply, {
        fingerprint: { ...request.params, body: request.body },
        statusCode: 200,
        work: async (trx, principal) =>
          rollouts.approve(trx, principal, sourceOf(request), request.params.id, request.params.planId, request.body),
      }),
  );
};

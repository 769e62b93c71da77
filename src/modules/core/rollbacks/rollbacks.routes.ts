import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdempotencyKeyHeaders } from '../../../platform/idempotency-http.js';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses, IDEMPOTENCY_ERRORS } from '../../../platform/error-schemas.js';
import { type IdempotencyService } from '../../../platform/idempotency.js';
import { nowIso } from '../../../platform/ids.js';
import type { RollbacksService } from './rollbacks.service.js';
import {
  RollbackApplyBody,
  RollbackApplyResponse,
  RollbackPlanBody,
  RollbackPlanResponse,
} from './rollbacks.schemas.js';
import { replayedAnswer, runIdempotent } from '../../../platform/idempotent-route.js';

export interface RollbacksRouteDeps {
  rollbacks: RollbacksService;
  idempotency: IdempotencyService;
}

const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };

export const rollbacksRoutes: FastifyPluginAsyncTypebox<RollbacksRouteDeps> = async (
  app,
  { rollbacks, idempotency },
) => {
  app.post(
    '/api/v1/rollbacks/plan',
    {
      config: management,
      schema: {
        tags: ['rollbacks'],
        operationId: 'planRollback',
        summary: 'Deterministic plan restoring a retained version (within a scope); changes nothing',
        security: [{ bearer: [] }],
        body: RollbackPlanBody,
        response: {
          200: RollbackPlanResponse,
          ...errorResponses(400, 'rollback_invalid', 401, 403, 404, 'version_conflict', 'plan_conflict'),
        },
      },
    },
    async (request) => ({ plan: await rollbacks.plan(principalOf(request), request.body) }),
  );

  app.post(
    '/api/v1/rollbacks/apply',
    {
      config: management,
      schema: {
        tags: ['rollbacks'],
        operationId: 'applyRollback',
        summary: 'Apply a reviewed rollback plan as one new version (history is never rewritten)',
        security: [{ bearer: [] }],
        headers: IdempotencyKeyHeaders,
        body: RollbackApplyBody,
        response: {
          200: RollbackApplyResponse,
          ...errorResponses(
            400,
            'rollback_invalid',
            'idempotency_key_required',
            401,
            403,
            'approval_required',
            404,
            'plan_conflict',
            'version_conflict',
            ...IDEMPOTENCY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      // The key is where the request is stored, not part of what it asks: header and body forms match.
      const { idempotencyKey: _key, ...input } = request.body;
      return runIdempotent(idempotency, request, reply, {
        fingerprint: input,
        statusCode: 200,
        keyRequired: true,
        bodyField: 'idempotencyKey',
        replayed: replayedAnswer,
        work: async (trx, principal, key) => ({
          ...(await rollbacks.apply(trx, principal, input)),
          replay: { idempotencyKey: key, replayed: false, firstAppliedAt: nowIso() },
        }),
      });
    },
  );
};

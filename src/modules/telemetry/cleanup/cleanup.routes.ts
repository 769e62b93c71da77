import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import type { CleanupService } from './cleanup.service.js';
import { CLEANUP_BODY_LIMIT, CleanupBody, CleanupResponse } from './cleanup.schemas.js';

export interface CleanupRouteDeps {
  cleanup: CleanupService;
}

const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };

export const cleanupRoutes: FastifyPluginAsyncTypebox<CleanupRouteDeps> = async (app, { cleanup }) => {
  app.post(
    '/api/v1/cleanup',
    {
      config: management,
      bodyLimit: CLEANUP_BODY_LIMIT,
      schema: {
        tags: ['cleanup'],
        operationId: 'cleanupReport',
        security: [{ bearer: [] }],
        summary:
          'Stale-flag report: inventory, reconciliation with code references, readiness and a staged removal plan',
        description:
          'Reads only; never changes a flag. Bodies over 256 KiB are 413. The same input (with `now`) gives the same report and plan digest.',
        body: CleanupBody,
        response: { 200: CleanupResponse, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request) => cleanup.report(principalOf(request), request.body),
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import type { JournalService } from './journal.service.js';
import { ListChangesQuery, ListChangesResponse } from './journal.schemas.js';

export interface JournalRouteDeps {
  journal: JournalService;
  access: AppAccess;
}

export const journalRoutes: FastifyPluginAsyncTypebox<JournalRouteDeps> = async (app, { journal, access }) => {
  app.get(
    '/api/v1/changes',
    {
      config: { auth: { allow: ['cli', 'admin'] } },
      schema: {
        tags: ['journal'],
        operationId: 'listChanges',
        summary: 'Read the change journal of an app, newest first',
        security: [{ bearer: [] }],
        querystring: ListChangesQuery,
        response: { 200: ListChangesResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const q = request.query;
      const { env } = q.env ? await access.requireEnv(principal, q.appId, q.env, 'read') : { env: null };
      if (!q.env) await access.requireApp(principal, q.appId, 'read');
      return journal.list({ ...q, env: env?.slug });
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import { AppError } from '../../../platform/errors.js';
import type { UserPrincipal } from '../../../platform/principal.js';
import type { AuthService } from './auth.service.js';
import { LoginBody, LoginResponse } from './auth.schemas.js';
import { isCrossOrigin } from './cross-origin.js';

export const authRoutes: FastifyPluginAsyncTypebox<{ auth: AuthService }> = async (app, { auth }) => {
  app.post(
    '/api/v1/cli-token',
    {
      // Before the body is parsed or validated: every answer of this route (errors included) is
      // no-store, and a cross-origin call is refused whatever it carries.
      onRequest: async (request, reply) => {
        reply.header('cache-control', 'no-store');
        if (isCrossOrigin(request)) {
          throw new AppError(403, 'cross_origin_rejected', 'Login is not accepted from another origin.', {
            resolution: "Log in with the CLI or from the service's own origin.",
          });
        }
      },
      schema: {
        tags: ['auth'],
        operationId: 'login',
        summary: 'Sign up or sign in; returns a cli_ token',
        body: LoginBody,
        response: {
          200: LoginResponse,
          ...errorResponses(400, 'invalid_credentials', 'cross_origin_rejected', 'rate_limited'),
        },
      },
    },
    async (request) => auth.login(request.body, request.ip),
  );

  app.delete(
    '/api/v1/cli-token',
    {
      config: { auth: { allow: ['cli'] } },
      schema: {
        tags: ['auth'],
        operationId: 'logout',
        summary: 'Revoke the presented cli_ token',
        security: [{ bearer: [] }],
        response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      await auth.logout(principalOf(request) as UserPrincipal);
      return reply.code(204).send();
    },
  );
};

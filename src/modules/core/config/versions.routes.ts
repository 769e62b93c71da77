import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/authenticate.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import type { VersionsService } from './versions.service.js';
import {
  DiffQuery,
  DiffResponse,
  EnvQuery,
  ListVersionsQuery,
  ListVersionsResponse,
  VersionParams,
  VersionResponse,
} from './versions.schemas.js';

export interface VersionsRouteDeps {
  versions: VersionsService;
}

const management = { auth: { allow: ['cli', 'admin'] as ('cli' | 'admin')[] } };

export const versionsRoutes: FastifyPluginAsyncTypebox<VersionsRouteDeps> = async (app, { versions }) => {
  app.get(
    '/api/v1/config-versions',
    {
      config: management,
      schema: {
        tags: ['versions'],
        operationId: 'listConfigVersions',
        summary: 'List retained config versions, newest first, with the current state',
        security: [{ bearer: [] }],
        querystring: ListVersionsQuery,
        response: { 200: ListVersionsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const q = request.query;
      return versions.list(principalOf(request), q.appId, q.env, q.limit ?? 20, q.cursor);
    },
  );

  // A static segment wins over a parameter in Fastify's router, so /diff never reaches /{version}.
  app.get(
    '/api/v1/config-versions/diff',
    {
      config: management,
      schema: {
        tags: ['versions'],
        operationId: 'diffConfigVersions',
        summary: 'Deterministic structured diff between two retained versions',
        security: [{ bearer: [] }],
        querystring: DiffQuery,
        response: { 200: DiffResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const q = request.query;
      return versions.diff(principalOf(request), q.appId, q.env, q.from, q.to);
    },
  );

  app.get(
    '/api/v1/config-versions/:version',
    {
      config: management,
      schema: {
        tags: ['versions'],
        operationId: 'getConfigVersion',
        summary: 'One retained version: its exact snapshot',
        security: [{ bearer: [] }],
        params: VersionParams,
        querystring: EnvQuery,
        response: { 200: VersionResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      versions.get(principalOf(request), request.query.appId, request.query.env, request.params.version),
  );
};

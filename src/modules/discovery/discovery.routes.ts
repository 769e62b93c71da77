import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CAPABILITY_CONTRACT } from './capability-contract.js';

const Links = Type.Object({
  name: Type.String(),
  apiVersion: Type.Integer(),
  links: Type.Record(Type.String(), Type.String()),
});

const OpenApiDocument = Type.Object({ openapi: Type.String(), info: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true });

export const discoveryRoutes: FastifyPluginAsyncTypebox<{ ready: () => Promise<boolean> }> = async (app, { ready }) => {
  app.get('/api', {
    schema: { tags: ['discovery'], operationId: 'discoverRoot', summary: 'Discovery links', response: { 200: Links } },
  }, async () => ({
    name: 'Ensign',
    apiVersion: 1,
    links: { v1: '/api/v1', docs: '/docs', openapi: '/openapi.json', contract: '/api/v1/contract', cli: '/api/v1/contract#cli' },
  }));

  app.get('/api/v1', {
    schema: { tags: ['discovery'], operationId: 'discoverV1', summary: 'Versioned discovery links', response: { 200: Links } },
  }, async () => ({
    name: 'Ensign API v1',
    apiVersion: 1,
    links: { contract: '/api/v1/contract', openapi: '/api/v1/openapi', canonicalOpenapi: '/openapi.json', docs: '/docs', login: '/api/v1/cli-token', apps: '/api/v1/apps' },
  }));

  app.get('/api/v1/contract', {
    schema: { tags: ['discovery'], operationId: 'capabilityContract', summary: 'Capability contract', response: { 200: Type.Object({}, { additionalProperties: true }) } },
  }, async () => ({
    ...CAPABILITY_CONTRACT,
    cli: { name: 'ensign', install: 'npm ci && npm run build (bin: ensign)', configuration: ['ENSIGN_URL', 'ENSIGN_TOKEN', '~/.config/ensign/credentials.json'] },
  }));

  const openapi = async () => app.swagger() as unknown as { openapi: string; info: Record<string, unknown> };
  app.get('/api/v1/openapi', {
    schema: { tags: ['discovery'], operationId: 'openapiV1', summary: 'OpenAPI 3.1 document', response: { 200: OpenApiDocument } },
  }, openapi);
  app.get('/openapi.json', {
    schema: { tags: ['discovery'], operationId: 'openapiCanonical', summary: 'OpenAPI 3.1 document (canonical)', response: { 200: OpenApiDocument } },
  }, openapi);

  app.get('/healthz', {
    schema: { tags: ['operations'], operationId: 'health', summary: 'The process is alive', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', {
    schema: {
      tags: ['operations'], operationId: 'ready', summary: 'The database is reachable',
      response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: Type.Object({ status: Type.Literal('unavailable') }) },
    },
  }, async (_request, reply) => ((await ready()) ? { status: 'ready' as const } : reply.code(503).send({ status: 'unavailable' as const })));
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Plan, QuotaSet } from '../../../config.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import { AppError } from '../../../platform/errors.js';
import { CAPABILITY_CONTRACT, capabilitiesOf, servedLimits } from './capability-contract.js';

const Links = Type.Object({
  name: Type.String(),
  apiVersion: Type.Integer(),
  links: Type.Record(Type.String(), Type.String(), { description: 'Documents readable with GET and no credential.' }),
  routes: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description: 'Entry points as "METHOD path"; most need a credential.',
    }),
  ),
});

export interface DiscoveryOptions {
  ready: () => Promise<boolean>;
  /** The operator's plan quotas, published in the capability contract. */
  quotas: Record<Plan, QuotaSet>;
}

const OpenApiDocument = Type.Object(
  { openapi: Type.String(), info: Type.Object({}, { additionalProperties: true }) },
  { additionalProperties: true },
);

/** A database that does not answer within this time counts as unreachable. */
const READY_TIMEOUT_MS = 2000;

async function withinDeadline(check: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([check.catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

export const discoveryRoutes: FastifyPluginAsyncTypebox<DiscoveryOptions> = async (app, { ready, quotas }) => {
  app.get(
    '/api',
    {
      schema: {
        tags: ['discovery'],
        operationId: 'discoverRoot',
        summary: 'Discovery links',
        response: { 200: Links },
      },
    },
    async () => ({
      name: 'Ensign',
      apiVersion: 1,
      links: {
        v1: '/api/v1',
        docs: '/docs',
        openapi: '/openapi.json',
        contract: '/api/v1/contract',
        cli: '/api/v1/contract#cli',
      },
    }),
  );

  app.get(
    '/api/v1',
    {
      schema: {
        tags: ['discovery'],
        operationId: 'discoverV1',
        summary: 'Versioned discovery links',
        response: { 200: Links },
      },
    },
    async () => ({
      name: 'Ensign API v1',
      apiVersion: 1,
      links: {
        contract: '/api/v1/contract',
        openapi: '/api/v1/openapi',
        canonicalOpenapi: '/openapi.json',
        docs: '/docs',
        health: '/healthz',
        ready: '/readyz',
      },
      routes: {
        login: 'POST /api/v1/cli-token',
        logout: 'DELETE /api/v1/cli-token',
        apps: 'GET /api/v1/apps',
        createApp: 'POST /api/v1/apps',
        environments: 'GET /api/v1/envs',
        keys: 'GET /api/v1/keys',
        changes: 'GET /api/v1/changes',
        flags: 'GET /api/v1/flags',
        bulkApply: 'PATCH /api/v1/flags/bulk',
        configVersions: 'GET /api/v1/config-versions',
        config: 'GET /api/v1/config',
        publicConfig: 'GET /api/v1/public-config',
        advancedConfig: 'GET /api/v1/advanced-config',
        evaluate: 'POST /api/v1/evaluate',
        ofrepBulk: 'POST /api/ofrep/v1/evaluate/flags',
        ofrepFlag: 'POST /api/ofrep/v1/evaluate/flags/{key}',
      },
    }),
  );

  app.get(
    '/api/v1/contract',
    {
      schema: {
        tags: ['discovery'],
        operationId: 'capabilityContract',
        summary: 'Capability contract',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async () => {
      const capabilities = capabilitiesOf(app.swagger() as never);
      const served = servedLimits(new Set(capabilities.flatMap((c) => c.routes)));
      return {
        ...CAPABILITY_CONTRACT,
        capabilities,
        versions: { ...CAPABILITY_CONTRACT.versions, ...served.versions },
        limits: {
          ...served.limits,
          configSyncsPerMonthPerEnvironment: { free: quotas.free.configSyncs, pro: quotas.pro.configSyncs },
        },
        plans: {
          free: {
            appsPerUser: quotas.free.apps,
            flagsPerEnvironment: quotas.free.flags,
            configSyncsPerMonthPerEnvironment: quotas.free.configSyncs,
          },
          pro: {
            appsPerUser: quotas.pro.apps,
            flagsPerEnvironment: quotas.pro.flags,
            configSyncsPerMonthPerEnvironment: quotas.pro.configSyncs,
          },
        },
        cli: {
          name: 'ensign',
          install: 'npm ci && npm run build (bin: ensign)',
          configuration: ['ENSIGN_URL', 'ENSIGN_TOKEN', '~/.config/ensign/credentials.json'],
        },
      };
    },
  );

  const openapi = async () => app.swagger() as unknown as { openapi: string; info: Record<string, unknown> };
  app.get(
    '/api/v1/openapi',
    {
      schema: {
        tags: ['discovery'],
        operationId: 'openapiV1',
        summary: 'OpenAPI 3.1 document',
        response: { 200: OpenApiDocument },
      },
    },
    openapi,
  );
  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['discovery'],
        operationId: 'openapiCanonical',
        summary: 'OpenAPI 3.1 document (canonical)',
        response: { 200: OpenApiDocument },
      },
    },
    openapi,
  );

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'health',
        summary: 'The process is alive',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'ready',
        summary: 'The database is reachable',
        response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses('service_unavailable') },
      },
    },
    async () => {
      if (await withinDeadline(ready(), READY_TIMEOUT_MS)) return { status: 'ready' as const };
      throw new AppError(503, 'service_unavailable', 'The database is not reachable.', {
        resolution: 'Retry shortly; if it persists, check the database the server is configured with.',
        headers: { 'retry-after': '1' },
      });
    },
  );
};

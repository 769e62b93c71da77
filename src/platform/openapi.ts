// The OpenAPI 3.1 document is generated from the route schemas, never written by hand.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES_EXTENSION } from './error-schemas.js';

export const API_TAGS = [
  { name: 'discovery', description: 'Discovery documents; no credential.' },
  { name: 'auth', description: 'Login tokens for the CLI and management.' },
  { name: 'apps', description: 'Apps and their environments.' },
  { name: 'keys', description: 'Environment and admin keys.' },
  { name: 'journal', description: 'The append-only change journal.' },
  { name: 'flags', description: 'Flags of an environment: create, change, toggle, delete, bulk apply.' },
  { name: 'versions', description: 'Retained config versions of an environment and diffs between them.' },
  { name: 'rollbacks', description: 'Deterministic rollback plans and their audited application as new versions.' },
  {
    name: 'authority',
    description:
      'Four-eyes authority workflow: scoped capability tokens, proposals, approvals, execution receipts and read-back.',
  },
  {
    name: 'delivery',
    description: 'Configuration documents for SDKs (environment keys), with ETags and monthly sync quotas.',
  },
  { name: 'evaluation', description: 'Remote evaluation of flags for a context with a server (sdk_) key.' },
  {
    name: 'ofrep',
    description:
      'OpenFeature Remote Evaluation Protocol (OFREP 0.3.0) for OpenFeature providers: sdk_ or pub_ keys, ETag/304, server-sent change events.',
  },
  {
    name: 'advanced',
    description:
      'Advanced configuration: the composed core/v1 document (server and client projections), impact of proposed changes, inspection of proposed documents.',
  },
  { name: 'metrics', description: 'Metrics of an environment and their immutable revisions, which experiments pin.' },
  {
    name: 'layers',
    description: 'Layers of mutually exclusive experiments: 10,000 buckets, a disjoint range per experiment.',
  },
  {
    name: 'holdouts',
    description: 'Holdouts: a fixed share of subjects kept out of every experiment that names them.',
  },
  {
    name: 'experiments',
    description:
      'Experiment definitions, lifecycle, ramps and iterations; running experiments assign subjects in evaluation.',
  },
  {
    name: 'rollouts',
    description:
      'Guarded rollout plans: stepwise rollout of an experiment variant, recommendations from guardrails and health, approvals and rollback.',
  },
  {
    name: 'telemetry',
    description:
      'Feature telemetry ingestion: batches of decision, assignment, exposure and outcome events (sdk_ or pub_ keys).',
  },
  {
    name: 'insights',
    description:
      'Privacy-safe insights: aggregates over hourly rollups with minimum-cell suppression, and redacted raw events (cli_ or admin_).',
  },
  {
    name: 'cleanup',
    description:
      'Stale-flag report: inventory, reconciliation with code references, readiness and a staged removal plan; reads only.',
  },
  {
    name: 'exports',
    description:
      'Raw telemetry export destinations signed with Standard Webhooks: policy-checked targets, secrets shown once, rotation with dual signing (cli_ or admin_).',
  },
  {
    name: 'erasure',
    description:
      "Subject erasure: a subject's raw telemetry deleted and its rollups rebuilt by a background job, late events dropped for as long as they are accepted (30 days); opaque receipts (cli_ or admin_).",
  },
  { name: 'operations', description: 'Health, readiness and Prometheus metrics.' },
];

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * The codes each error response of each operation can carry, read from the route schemas
 * (error-schemas.ts puts them there) and written on the document's response objects as
 * `x-error-codes`: @fastify/swagger keeps no extension of a response schema by itself.
 */
function errorCodesPublisher() {
  const codes = new Map<string, Record<string, unknown>>();
  return {
    collect(
      url: string,
      methods: string | string[],
      schema: { response?: Record<string, Record<string, unknown>> } | undefined,
    ) {
      const byStatus: Record<string, unknown> = {};
      for (const [status, response] of Object.entries(schema?.response ?? {})) {
        if (response?.[ERROR_CODES_EXTENSION]) byStatus[status] = response[ERROR_CODES_EXTENSION];
      }
      for (const method of [methods].flat()) codes.set(`${method.toLowerCase()} ${openApiPath(url)}`, byStatus);
    },
    publish(document: {
      paths?: Record<string, Record<string, { responses?: Record<string, Record<string, unknown>> }>>;
    }) {
      for (const [path, operations] of Object.entries(document.paths ?? {})) {
        for (const [method, operation] of Object.entries(operations)) {
          const byStatus = codes.get(`${method} ${path}`) ?? {};
          for (const [status, response] of Object.entries(operation.responses ?? {})) {
            if (byStatus[status]) response[ERROR_CODES_EXTENSION] = byStatus[status];
          }
        }
      }
      return document;
    },
  };
}

export async function registerOpenApi(app: FastifyInstance, extraTags: { name: string; description: string }[] = []) {
  const errorCodes = errorCodesPublisher();
  await app.register(swagger, {
    transform: ({ schema, url, route }) => {
      errorCodes.collect(url, route.method, schema as Parameters<typeof errorCodes.collect>[2]);
      return { schema, url };
    },
    transformObject: (document) =>
      'openapiObject' in document
        ? (errorCodes.publish(
            document.openapiObject as Parameters<typeof errorCodes.publish>[0],
          ) as typeof document.openapiObject)
        : document.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ensign API',
        version: '1.0.0',
        description: 'Feature-flag delivery, evaluation and management.',
      },
      tags: [...API_TAGS, ...extraTags],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'cli_, admin_, sdk_ or pub_ token' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'sdk_ or pub_ key (OFREP routes)' },
        },
      },
    },
    refResolver: {
      buildLocalReference(json, _baseUri, _fragment, i) {
        return typeof json.$id === 'string' ? json.$id : `def-${i}`;
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
}

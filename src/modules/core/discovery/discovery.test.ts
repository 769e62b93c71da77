import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildApp } from '../../../app.js';
import { createDb } from '../../../db/create-db.js';
import type { DialectName } from '../../../db/dialect.js';
import { servedLimits } from './capability-contract.js';
import {
  buildTestApp,
  dialects,
  suiteTestApp,
  testConfig,
  type TestContext,
} from '../../../../test/helpers/test-app.js';
import { expectError } from '../../../../test/helpers/fixtures.js';

const DOCUMENTS = ['/api', '/api/v1', '/api/v1/contract', '/api/v1/openapi', '/openapi.json'];
const ERROR_REF = '#/components/schemas/ErrorBody';

/** Every route of the foundation: success status, documented errors, query parameters, body. */
const FOUNDATION_ROUTES: Record<
  string,
  { success: string; errors: number[]; query?: string[]; body?: boolean; auth?: boolean }
> = {
  'post /api/v1/cli-token': { success: '200', errors: [400, 401, 403, 429], body: true },
  'delete /api/v1/cli-token': { success: '204', errors: [401], auth: true },
  'get /api/v1/apps': { success: '200', errors: [401], auth: true },
  'post /api/v1/apps': { success: '201', errors: [400, 401, 404, 409, 429], body: true, auth: true },
  'get /api/v1/envs': { success: '200', errors: [400, 401, 403, 404], query: ['appId'], auth: true },
  'get /api/v1/keys': { success: '200', errors: [400, 401, 403, 404], query: ['appId', 'env'], auth: true },
  'post /api/v1/keys': { success: '201', errors: [400, 401, 403, 404, 409], body: true, auth: true },
  'patch /api/v1/keys': { success: '200', errors: [400, 401, 403, 404], body: true, auth: true },
  'delete /api/v1/keys': { success: '200', errors: [400, 401, 403, 404], query: ['keyId'], auth: true },
  'get /api/v1/changes': {
    success: '200',
    errors: [400, 401, 403, 404],
    auth: true,
    query: [
      'appId',
      'id',
      'env',
      'operation',
      'source',
      'resourceType',
      'resourceId',
      'authorityType',
      'userId',
      'keyFingerprint',
      'from',
      'to',
      'limit',
      'cursor',
    ],
  },
  ...Object.fromEntries(DOCUMENTS.map((p) => [`get ${p}`, { success: '200', errors: [] }])),
  'get /healthz': { success: '200', errors: [] },
  'get /readyz': { success: '200', errors: [503] },
};

const DEFAULT_QUOTAS = {
  free: { configSyncs: 25_000, apps: 10, flags: 500 },
  pro: { configSyncs: 1_000_000, apps: 1000, flags: 10_000 },
};

/** An app whose database is gone: SQLite closed under it, or a PostgreSQL server that does not answer. */
async function appWithoutDatabase(t: TestContext, dialect: DialectName) {
  if (dialect === 'sqlite') {
    const built = await buildTestApp(t, { dialect });
    await built.database.handle.close();
    return built.app;
  }
  const handle = createDb('postgres://postgres@127.0.0.1:1/ensign');
  const app = await buildApp({ db: handle.db, dbHandle: handle, config: testConfig() });
  await app.ready();
  t.after(async () => {
    await app.close();
    await handle.close();
  });
  return app;
}

for (const dialect of dialects) {
  describe(`discovery on ${dialect}`, () => {
    // The discovery documents are read only: the tests share one app.
    const shared = suiteTestApp({ dialect });
    test('every discovery document answers 200 JSON without a credential', async () => {
      const { app } = shared();
      for (const url of DOCUMENTS) {
        const res = await app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.ok(res.headers['x-request-id']);
        res.json();
      }
    });

    test('every link of /api and /api/v1 resolves', async () => {
      const { app } = shared();
      for (const url of ['/api', '/api/v1']) {
        const body = (await app.inject({ method: 'GET', url })).json();
        assert.equal(body.apiVersion, 1);
        const links = Object.values(body.links) as string[];
        assert.ok(links.length >= 4);
        for (const link of links) {
          const res = await app.inject({ method: 'GET', url: link.split('#')[0]! });
          assert.equal(res.statusCode, 200, `${url} → ${link}: ${res.statusCode}`);
        }
        for (const route of Object.values(body.routes ?? {}) as string[])
          assert.match(route, /^(GET|POST|PATCH|DELETE) \/api\/(v1|ofrep\/v1)\//);
      }
      const root = (await app.inject({ method: 'GET', url: '/api' })).json();
      for (const name of ['docs', 'openapi', 'contract', 'cli']) assert.ok(root.links[name], `/api links ${name}`);
    });

    test('the contract lists capabilities, credential types and scopes, and every limit', async (t) => {
      const { app } = await buildTestApp(t, { dialect, config: { quotas: DEFAULT_QUOTAS } });
      const c = (await app.inject({ method: 'GET', url: '/api/v1/contract' })).json();
      assert.equal(c.apiVersion, 1);
      const capabilities = new Map(c.capabilities.map((x: any) => [x.name, x.routes]));
      for (const name of ['discovery', 'login', 'apps', 'keys', 'journal'])
        assert.ok(capabilities.has(name), `capability ${name}`);
      for (const route of Object.keys(FOUNDATION_ROUTES).filter(
        (r) => r.includes('/api/v1/') && !r.includes('openapi') && !r.includes('contract'),
      )) {
        const [method, path] = route.split(' ');
        assert.ok(
          [...capabilities.values()].flat().includes(`${method!.toUpperCase()} ${path}`),
          `${route} in the contract`,
        );
      }
      const credentials = new Map(c.credentials.map((x: any) => [x.type, x]));
      assert.deepEqual([...credentials.keys()].sort(), ['admin', 'cli', 'pub', 'sdk']);
      assert.deepEqual(
        ['cli', 'admin', 'sdk', 'pub'].map((type) => (credentials.get(type) as any).scope),
        ['user', 'app', 'environment', 'environment'],
      );
      for (const [type, x] of credentials) assert.equal((x as any).prefix, `${type}_`);
      const l = c.limits;
      const served = new Set([...capabilities.values()].flat() as string[]);
      assert.deepEqual(l.configSyncsPerMonthPerEnvironment, { free: 25_000, pro: 1_000_000 });
      assert.deepEqual(l.telemetryBatchEvents, { min: 1, max: 100 });
      assert.deepEqual(
        [
          l.insightQueryWindowDays,
          l.insightWindowWithoutFilterHours,
          l.insightDimensions,
          l.insightMeasures,
          l.insightRows,
          l.insightScannedBuckets,
        ],
        [90, 24, 3, 10, 1000, 10_000],
      );
      assert.deepEqual(
        [
          l.eventReadWindowDays,
          l.eventPageRows,
          l.minimumCellSubjects,
          l.cursorMaxCharacters,
          l.cursorResumeTtlMinutes,
        ],
        [7, 100, 20, 8192, 15],
      );
      assert.deepEqual(l.requestBodyBytes, { default: 1_048_576, evaluate: 65_536, inspect: 65_536, cleanup: 262_144 });
      assert.deepEqual(l.configVersionsListLimit, { min: 1, max: 100, default: 20 });
      assert.deepEqual(l.changesListLimit, { min: 1, max: 200 });
      assert.deepEqual(l.identifierLength, { min: 1, max: 128 });
      assert.deepEqual(l.idempotencyKeyLength.header, { min: 8, max: 128 });
      // Limits of routes that are not served are not promised.
      assert.equal(l.exportListLimit !== undefined, served.has('GET /api/v1/telemetry/exports'));
      assert.equal(l.erasureLatenessWindowDays !== undefined, served.has('POST /api/v1/telemetry/erasures'));
      if (served.has('POST /api/v1/telemetry/erasures'))
        assert.deepEqual([l.erasureLatenessWindowDays, l.erasureTombstoneDays], [7, 30]);
      assert.equal(
        l.idempotencyKeyLength.recompute !== undefined,
        served.has('POST /api/v1/experiments/{id}/results/recompute'),
      );
      assert.equal(c.versions.analysisEngine !== undefined, served.has('GET /api/v1/experiments/{id}/results'));
      assert.equal(c.versions.telemetryEvents, 1);
      assert.deepEqual(c.plans.free, {
        appsPerUser: 10,
        flagsPerEnvironment: 500,
        configSyncsPerMonthPerEnvironment: 25_000,
      });
      assert.deepEqual(c.plans.pro, {
        appsPerUser: 1000,
        flagsPerEnvironment: 10_000,
        configSyncsPerMonthPerEnvironment: 1_000_000,
      });
    });

    test('a limit is published only while its route is served', () => {
      const none = servedLimits(new Set());
      assert.deepEqual(Object.keys(none.limits).sort(), [
        'idempotencyKeyLength',
        'identifierLength',
        'requestBodyBytes',
      ]);
      assert.deepEqual(none.versions, {});
      const some = servedLimits(
        new Set([
          'POST /api/v1/cleanup',
          'POST /api/v1/telemetry/exports/{id}/backfills',
          'POST /api/v1/experiments/{id}/results/recompute',
        ]),
      );
      assert.deepEqual(some.limits.requestBodyBytes, { default: 1_048_576, cleanup: 262_144 });
      assert.deepEqual(some.limits.idempotencyKeyLength, {
        header: { min: 8, max: 128 },
        backfill: { min: 16 },
        recompute: { min: 16, max: 128 },
      });
      assert.equal(some.limits.exportBackfillRetentionDays, 30);
      assert.equal(some.limits.telemetryBatchEvents, undefined);
    });

    test('both OpenAPI documents are one valid OpenAPI 3.1.0 document, version 1.0.0', async () => {
      const { app } = shared();
      const canonical = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const v1 = (await app.inject({ method: 'GET', url: '/api/v1/openapi' })).json();
      assert.deepEqual(v1, canonical);
      assert.equal(canonical.openapi, '3.1.0');
      assert.equal(canonical.info.version, '1.0.0');
      const result = await new Validator().validate(canonical);
      assert.ok(result.valid, JSON.stringify(result.errors, null, 1));
      assert.ok(canonical.components.schemas.ErrorBody, 'ErrorBody is a component');
      assert.equal(canonical.components.securitySchemes.bearer.scheme, 'bearer');
    });

    test('every foundation route is documented with its request, success and error responses', async () => {
      const { app } = shared();
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const operationIds = new Set<string>();
      for (const [route, spec] of Object.entries(FOUNDATION_ROUTES)) {
        const [method, path] = route.split(' ') as [string, string];
        const op = doc.paths[path]?.[method];
        assert.ok(op, `${route} is documented`);
        assert.ok(op.operationId && !operationIds.has(op.operationId), `${route} has a unique operationId`);
        operationIds.add(op.operationId);
        assert.ok(op.tags?.length > 0, `${route} is tagged`);
        const success = op.responses[spec.success];
        assert.ok(success, `${route} documents ${spec.success}`);
        if (spec.success !== '204')
          assert.ok(success.content?.['application/json']?.schema, `${route} has a success schema`);
        for (const status of spec.errors) {
          const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
          assert.equal(schema?.$ref, ERROR_REF, `${route} documents ${status} in the error shape`);
        }
        if (spec.body) {
          const body = op.requestBody?.content?.['application/json']?.schema;
          assert.ok(body?.properties, `${route} has a request body schema`);
          assert.equal(body.additionalProperties, false, `${route} rejects unknown fields`);
        }
        const query = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
        assert.deepEqual(query.sort(), [...(spec.query ?? [])].sort(), `${route} query parameters`);
        if (spec.auth) assert.deepEqual(op.security, [{ bearer: [] }], `${route} needs a bearer`);
      }
      for (const path of ['/api/v1/apps', '/api/v1/keys']) {
        const header = doc.paths[path].post.parameters.find(
          (p: any) => p.in === 'header' && p.name === 'idempotency-key',
        );
        assert.ok(header, `POST ${path} documents Idempotency-Key`);
      }
    });

    test('/docs serves Swagger UI; /healthz and /readyz answer 200', async () => {
      const { app } = shared();
      const docs = await app.inject({ method: 'GET', url: '/docs' });
      assert.equal(docs.statusCode, 200);
      assert.match(String(docs.headers['content-type']), /^text\/html/);
      assert.match(docs.body, /swagger-ui/i);
      assert.deepEqual((await app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ready' });
    });

    test('/readyz is 503 service_unavailable when the database is gone; /healthz stays 200', async (t) => {
      const app = await appWithoutDatabase(t, dialect);
      const down = await app.inject({ method: 'GET', url: '/readyz' });
      expectError(down, 503, 'service_unavailable');
      assert.equal(down.headers['retry-after'], '1');
      assert.deepEqual((await app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    });
  });
}

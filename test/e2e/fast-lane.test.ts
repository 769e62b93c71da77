// The fast lane (src/platform/fast-lane.ts) over real HTTP: every request to the lane's routes must get
// the answer Fastify gives the same request (app.inject never goes through the lane), header for header
// and byte for byte, whichever way it goes: answered by the lane (errors included) or declined before
// anything of it was read and left to Fastify. The generic cases are generated from the lane's own route
// table, so a route that joins the lane is tested without anyone remembering to add it here.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { bearer } from '../helpers/fixtures.js';
import { buildTestApp, dialects, type TestApp } from '../helpers/test-app.js';
import type { EnvironmentFixture } from '../helpers/delivery-fixtures.js';
import {
  flagsFixture,
  revokeKey,
  storeInvalidConfig,
} from '../../src/modules/delivery/evaluation/evaluation.fixtures.js';
import { fastLaneRoute } from '../../src/platform/fast-lane.js';
import { TOKEN_TYPES, type TokenType } from '../../src/platform/tokens.js';
import type { FastLaneRouteInfo } from '../../src/platform/fast-lane.js';
import { waitFor } from '../helpers/polling.js';

const EVALUATE = '/api/v1/evaluate';
const BULK = '/api/ofrep/v1/evaluate/flags';
const single = (key: string) => `${BULK}/${key}`;
const CONFIG = '/api/v1/config';
const PUBLIC_CONFIG = '/api/v1/public-config';
const JSON_HEADERS = { 'content-type': 'application/json' };
/** Headers of the connection or the moment, not of the answer. */
const VOLATILE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

type Way = 'lane' | 'framework';

interface Case {
  name: string;
  /** POST unless said. */
  method?: 'GET' | 'HEAD' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
  way: Way;
  /** Checked when given; the answer must equal Fastify's either way. */
  status?: number;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function normalised(headers: Record<string, unknown>, keepRequestId: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (VOLATILE.has(name) || (name === 'x-request-id' && !keepRequestId)) continue;
    out[name] = String(value);
  }
  return out;
}

const hasBody = (c: Case) => (c.method ?? 'POST') === 'POST';

async function overHttp(base: string, c: Case): Promise<Answer> {
  const res = await fetch(base + c.url, {
    method: c.method ?? 'POST',
    headers: c.headers,
    body: hasBody(c) ? c.body : undefined,
  });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

async function throughFastify(app: FastifyInstance, c: Case): Promise<Answer> {
  const res = await app.inject({
    method: c.method ?? 'POST',
    url: c.url,
    headers: c.headers,
    payload: hasBody(c) ? c.body : undefined,
  });
  return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.body };
}

/** Sends the case over HTTP and through Fastify and checks they agree, and which way it went. */
async function expectSameAnswer(test: TestApp, base: string, c: Case): Promise<Answer> {
  const { app } = test;
  // Whether the key is in memory or not changes nothing: the lane reads an uncached one itself.
  const before = app.fastLane.stats.served;
  const viaHttp = await overHttp(base, c);
  const way: Way = app.fastLane.stats.served > before ? 'lane' : 'framework';
  const viaFastify = await throughFastify(app, c);
  assert.equal(way, c.way, `${c.name}: taken the way it should be (${viaHttp.status} ${viaHttp.body.slice(0, 200)})`);
  if (c.status !== undefined) assert.equal(viaHttp.status, c.status, `${c.name}: ${viaHttp.body}`);
  assert.equal(viaHttp.status, viaFastify.status, c.name);
  // A well-formed request id is echoed by both; otherwise each makes its own.
  const keepRequestId = /^[A-Za-z0-9._:-]{1,128}$/.test(c.headers['x-request-id'] ?? '');
  // Error bodies name the request id, which differs between the two requests unless the client set it.
  const bodyOf = (answer: Answer) =>
    keepRequestId ? answer.body : answer.body.replace(/"requestId":"[^"]*"/, '"requestId":"…"');
  assert.equal(bodyOf(viaHttp), bodyOf(viaFastify), c.name);
  const httpHeaders = normalised(viaHttp.headers, keepRequestId);
  const fastifyHeaders = normalised(viaFastify.headers, keepRequestId);
  // Each sync counts, so the second of the two has one fewer left.
  if (httpHeaders['x-sync-quota-remaining'] !== undefined && viaHttp.status !== 429) {
    assert.equal(
      Number(fastifyHeaders['x-sync-quota-remaining']),
      Number(httpHeaders['x-sync-quota-remaining']) - 1,
      c.name,
    );
    delete httpHeaders['x-sync-quota-remaining'];
    delete fastifyHeaders['x-sync-quota-remaining'];
  }
  assert.deepEqual(httpHeaders, fastifyHeaders, c.name);
  assert.match(String(viaHttp.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/, `${c.name}: a request id`);
  return viaHttp;
}

/** The app listening on a free port (buildTestApp closes it when the test ends). */
const listening = (test: TestApp) => test.app.listen({ port: 0, host: '127.0.0.1' });

/** What a generated case needs of a route that the table cannot say: path parameters. Every lane route
 * must have an entry, so a new route fails here until it is given one. */
const PATH_PARAMS: Record<string, Record<string, string>> = {
  'POST /api/v1/evaluate': {},
  'POST /api/ofrep/v1/evaluate/flags/:key': { key: 'checkout' },
  'POST /api/ofrep/v1/evaluate/flags': {},
  'GET /api/v1/config': {},
  'GET /api/v1/public-config': {},
};

function credentialOf(fx: EnvironmentFixture, type: TokenType): string {
  return { cli: fx.user.token, admin: fx.admin, sdk: fx.sdk, pub: fx.pub }[type];
}

/** The generic cases of one lane route, from its method, path, auth rule, body limit and schemas. */
function generatedCases(route: FastLaneRouteInfo, fx: EnvironmentFixture): Case[] {
  const id = `${route.method} ${route.url}`;
  const params = PATH_PARAMS[id];
  assert.ok(params, `lane route ${id} has no entry in PATH_PARAMS: add one so it is tested`);
  const url = route.url.replace(/:(\w+)/g, (_, name: string) => params[name]!);
  const method = route.method;
  const allowed = route.auth.allow[0]!;
  const auth = bearer(credentialOf(fx, allowed));
  const json = method === 'POST' ? JSON_HEADERS : {};
  // The smallest body the schema accepts (TypeBox fills in what is required).
  const body = route.schema.body ? JSON.stringify(Value.Create(route.schema.body as TSchema)) : '';
  const c = (name: string, way: Way, extra: Partial<Case> = {}): Case => ({
    name: `${id}: ${name}`,
    method,
    url,
    headers: { ...auth, ...json },
    body,
    way,
    ...extra,
  });
  const cases: Case[] = [
    ...route.auth.allow.map((type) =>
      c(`a ${type}_ key`, 'lane', { headers: { ...bearer(credentialOf(fx, type)), ...json }, status: 200 }),
    ),
    ...TOKEN_TYPES.filter((type) => !route.auth.allow.includes(type)).map((type) =>
      c(`a ${type}_ credential, refused`, 'framework', { headers: { ...bearer(credentialOf(fx, type)), ...json } }),
    ),
    c('no credential', 'framework', { headers: { ...json }, status: 401 }),
    c('an unknown key', 'framework', { headers: { ...bearer(`${credentialOf(fx, allowed)}x`), ...json }, status: 401 }),
    c('a malformed Authorization header', 'framework', {
      headers: { authorization: 'Basic abc', ...json },
      status: 401,
    }),
    c('a request id', 'lane', { headers: { ...auth, ...json, 'x-request-id': 'trace-42' } }),
    c('a malformed request id', 'lane', { headers: { ...auth, ...json, 'x-request-id': 'not a valid id!' } }),
    c('an Origin', 'lane', { headers: { ...auth, ...json, origin: 'https://shop.example' } }),
    c('a query string', 'framework', { url: `${url}?x=1` }),
    c('a trailing slash', 'framework', { url: `${url}/` }),
  ];
  if (route.auth.apiKeyHeader)
    cases.push(c('X-API-Key', 'lane', { headers: { 'x-api-key': credentialOf(fx, allowed), ...json }, status: 200 }));
  if (method === 'GET') {
    cases.push(c('HEAD', 'framework', { method: 'HEAD' }));
  } else {
    cases.push(
      c('charset in the type', 'lane', {
        headers: { ...auth, 'content-type': 'application/json; charset=utf-8' },
        status: 200,
      }),
      c('invalid JSON', 'lane', { body: '{"context":', status: 400 }),
      c('an empty body', 'lane', { body: '', status: 400 }),
      c('a body that is not an object', 'lane', { body: '[]', status: 400 }),
      c('JSON declared as text', 'framework', { headers: { ...auth, 'content-type': 'text/plain' } }),
      c('a body past the route limit', 'framework', {
        body: JSON.stringify({ pad: 'x'.repeat(route.bodyLimit) }),
        status: 413,
      }),
    );
  }
  if (route.url.includes(':')) {
    cases.push(
      c('a path parameter past the router limit', 'framework', {
        url: route.url.replace(/:(\w+)/g, 'k'.repeat(600)),
        status: 414,
      }),
      c('bad percent-encoding', 'framework', { url: route.url.replace(/:(\w+)/g, '%E0%A4%A'), status: 400 }),
    );
  }
  return cases;
}

function cases(fx: EnvironmentFixture): Case[] {
  const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
  const pub = { ...bearer(fx.pub), ...JSON_HEADERS };
  const context = { targetingKey: 'user-1', plan: 'beta', country: 'NO' };
  const body = (value: unknown) => JSON.stringify(value);
  return [
    {
      name: 'evaluate one flag',
      url: EVALUATE,
      headers: sdk,
      body: body({ flagKey: 'checkout', context }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'evaluate listed flags',
      url: EVALUATE,
      headers: sdk,
      body: body({ flagKeys: ['limit', 'banner', 'nope'], context }),
      way: 'lane',
      status: 200,
    },
    { name: 'evaluate every flag', url: EVALUATE, headers: sdk, body: body({ context }), way: 'lane', status: 200 },
    {
      name: 'evaluate with a default of another type',
      url: EVALUATE,
      headers: sdk,
      body: body({ flagKey: 'limit', context, defaultValue: 'x' }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'evaluate with an Origin',
      url: EVALUATE,
      headers: { ...sdk, origin: 'https://example.com' },
      body: body({ flagKey: 'checkout', context }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'evaluate with a request id',
      url: EVALUATE,
      headers: { ...sdk, 'x-request-id': 'trace-42' },
      body: body({ flagKey: 'checkout', context }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'evaluate with charset',
      url: EVALUATE,
      headers: { ...sdk, 'content-type': 'application/json; charset=utf-8' },
      body: body({ context }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'evaluate flagKey and flagKeys',
      url: EVALUATE,
      headers: sdk,
      body: body({ flagKey: 'limit', flagKeys: ['limit'], context }),
      way: 'lane',
      status: 400,
    },
    { name: 'evaluate invalid JSON', url: EVALUATE, headers: sdk, body: '{"context":', way: 'lane', status: 400 },
    { name: 'evaluate empty body', url: EVALUATE, headers: sdk, body: '', way: 'lane', status: 400 },
    {
      name: 'evaluate unknown field',
      url: EVALUATE,
      headers: sdk,
      body: body({ context, extra: 1 }),
      way: 'lane',
      status: 400,
    },
    {
      name: 'evaluate too many flagKeys',
      url: EVALUATE,
      headers: sdk,
      body: body({ flagKeys: Array.from({ length: 101 }, (_, i) => `f${i}`), context }),
      way: 'lane',
      status: 400,
    },
    {
      name: 'evaluate with a pub_ key',
      url: EVALUATE,
      headers: pub,
      body: body({ context }),
      way: 'framework',
      status: 403,
    },
    {
      name: 'evaluate with an admin_ key',
      url: EVALUATE,
      headers: { ...bearer(fx.admin), ...JSON_HEADERS },
      body: body({ context }),
      way: 'framework',
      status: 403,
    },
    {
      name: 'evaluate without a credential',
      url: EVALUATE,
      headers: JSON_HEADERS,
      body: body({ context }),
      way: 'framework',
      status: 401,
    },
    {
      name: 'evaluate with an unknown key',
      url: EVALUATE,
      headers: { ...bearer(`${fx.sdk}x`), ...JSON_HEADERS },
      body: body({ context }),
      way: 'framework',
      status: 401,
    },
    {
      name: 'evaluate as text (only JSON is read: 415)',
      url: EVALUATE,
      headers: { ...bearer(fx.sdk), 'content-type': 'text/plain' },
      body: body({ context }),
      way: 'framework',
      status: 415,
    },
    {
      name: 'evaluate over 64 KiB',
      url: EVALUATE,
      headers: sdk,
      body: body({ context: { ...context, blob: 'x'.repeat(64 * 1024) } }),
      way: 'framework',
      status: 413,
    },
    {
      name: 'evaluate with a query string',
      url: `${EVALUATE}?debug=1`,
      headers: sdk,
      body: body({ context }),
      way: 'framework',
      status: 200,
    },
    {
      name: 'evaluate with a prototype key',
      url: EVALUATE,
      headers: sdk,
      body: '{"flagKey":"checkout","context":{"__proto__":{"plan":"beta"},"targetingKey":"u"}}',
      way: 'lane',
      status: 200,
    },

    { name: 'OFREP flag', url: single('checkout'), headers: sdk, body: body({ context }), way: 'lane', status: 200 },
    {
      name: 'OFREP flag with X-API-Key',
      url: single('banner'),
      headers: { 'x-api-key': fx.pub, ...JSON_HEADERS },
      body: body({ context }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'OFREP flag hidden from pub_',
      url: single('internal'),
      headers: pub,
      body: body({ context }),
      way: 'lane',
      status: 404,
    },
    {
      name: 'OFREP missing flag',
      url: single('nope'),
      headers: sdk,
      body: body({ context }),
      way: 'lane',
      status: 404,
    },
    {
      name: 'OFREP flag, percent-encoded key',
      url: single('dark%2Dmode'),
      headers: sdk,
      body: body({ context }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'OFREP flag, bad targetingKey',
      url: single('checkout'),
      headers: sdk,
      body: body({ context: { targetingKey: 7 } }),
      way: 'lane',
      status: 400,
    },
    {
      name: 'OFREP flag, split without a key',
      url: single('banner'),
      headers: sdk,
      body: body({ context: {} }),
      way: 'lane',
      status: 400,
    },
    {
      name: 'OFREP flag, context not an object',
      url: single('checkout'),
      headers: sdk,
      body: body({ context: 'x' }),
      way: 'lane',
      status: 400,
    },
    {
      name: 'OFREP flag, key past the router limit',
      url: single('k'.repeat(600)),
      headers: sdk,
      body: body({ context }),
      way: 'framework',
      status: 414,
    },
    {
      name: 'OFREP flag, bad percent-encoding',
      url: single('%E0%A4%A'),
      headers: sdk,
      body: body({ context }),
      way: 'framework',
      status: 400,
    },
    {
      name: 'OFREP flag with an admin_ key',
      url: single('checkout'),
      headers: { ...bearer(fx.admin), ...JSON_HEADERS },
      body: body({ context }),
      way: 'framework',
      status: 403,
    },
    { name: 'OFREP bulk', url: BULK, headers: sdk, body: body({ context }), way: 'lane', status: 200 },
    { name: 'OFREP bulk, pub_', url: BULK, headers: pub, body: body({ context }), way: 'lane', status: 200 },
    {
      name: 'OFREP bulk, empty context',
      url: BULK,
      headers: pub,
      body: body({ context: {} }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'OFREP bulk with an Origin',
      url: BULK,
      headers: { ...pub, origin: 'https://shop.example' },
      body: body({ context }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'OFREP bulk, a later protocol field',
      url: BULK,
      headers: sdk,
      body: body({ context, future: true }),
      way: 'lane',
      status: 200,
    },
    {
      name: 'OFREP bulk after an event',
      url: `${BULK}?flagConfigEtag=1`,
      headers: sdk,
      body: body({ context }),
      way: 'framework',
      status: 200,
    },
    { name: 'OFREP bulk, invalid JSON', url: BULK, headers: sdk, body: '{', way: 'lane', status: 400 },
    {
      name: 'OFREP bulk, bad targetingKey',
      url: BULK,
      headers: sdk,
      body: body({ context: { targetingKey: ['a'] } }),
      way: 'lane',
      status: 400,
    },

    { name: 'config', method: 'GET', url: CONFIG, headers: bearer(fx.sdk), body: '', way: 'lane', status: 200 },
    { name: 'config, JSON declared', method: 'GET', url: CONFIG, headers: sdk, body: '', way: 'lane', status: 200 },
    {
      name: 'config with an Origin',
      method: 'GET',
      url: CONFIG,
      headers: { ...bearer(fx.sdk), origin: 'https://example.com' },
      body: '',
      way: 'lane',
      status: 200,
    },
    {
      name: 'config with a query string',
      method: 'GET',
      url: `${CONFIG}?x=1`,
      headers: bearer(fx.sdk),
      body: '',
      way: 'framework',
      status: 200,
    },
    {
      name: 'config, HEAD',
      method: 'HEAD',
      url: CONFIG,
      headers: bearer(fx.sdk),
      body: '',
      way: 'framework',
      status: 200,
    },
    {
      name: 'config with a pub_ key',
      method: 'GET',
      url: CONFIG,
      headers: bearer(fx.pub),
      body: '',
      way: 'framework',
      status: 401,
    },
    {
      name: 'config without a credential',
      method: 'GET',
      url: CONFIG,
      headers: {},
      body: '',
      way: 'framework',
      status: 401,
    },
    {
      name: 'config, trailing slash',
      method: 'GET',
      url: `${CONFIG}/`,
      headers: bearer(fx.sdk),
      body: '',
      way: 'framework',
      status: 404,
    },
    {
      name: 'public config',
      method: 'GET',
      url: PUBLIC_CONFIG,
      headers: bearer(fx.pub),
      body: '',
      way: 'lane',
      status: 200,
    },
    {
      name: 'public config with an Origin',
      method: 'GET',
      url: PUBLIC_CONFIG,
      headers: { ...bearer(fx.pub), origin: 'https://shop.example' },
      body: '',
      way: 'lane',
      status: 200,
    },
    {
      name: 'public config, trailing slash',
      method: 'GET',
      url: `${PUBLIC_CONFIG}/`,
      headers: bearer(fx.pub),
      body: '',
      way: 'framework',
      status: 404,
    },
    {
      name: 'public config with an sdk_ key',
      method: 'GET',
      url: PUBLIC_CONFIG,
      headers: bearer(fx.sdk),
      body: '',
      way: 'framework',
      status: 401,
    },
  ];
}

/** A lane route whose handler counts its runs and fails as `fail` says. */
function countingRoute(app: FastifyInstance, runs: { count: number }, fail: () => never) {
  const route = fastLaneRoute({ allow: ['sdk'] })<{ n: number }>(({ principal }) => {
    runs.count++;
    if (principal.type !== 'sdk') throw new Error('an sdk_ route got another principal');
    return fail();
  });
  app.post(
    '/test/counting',
    {
      config: route.config,
      schema: {
        hide: true,
        body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } }, additionalProperties: false },
      },
    },
    route.handler,
  );
}

for (const dialect of dialects) {
  describe(`fast lane (${dialect})`, () => {
    test('every request to a lane route gets the answer Fastify gives it', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const routes = test.app.fastLane.routes();
      assert.deepEqual(
        routes.map((r) => `${r.method} ${r.url}`).sort(),
        Object.keys(PATH_PARAMS).sort(),
        'the lane serves the routes listed here, and no others',
      );
      for (const route of routes) {
        for (const c of generatedCases(route, fx)) {
          const answer = await expectSameAnswer(test, base, c);
          // An answer with an entity tag, asked again with it: 304 from the lane.
          if (
            c.way === 'lane' &&
            answer.status === 200 &&
            answer.headers.etag !== undefined &&
            !('if-none-match' in c.headers)
          ) {
            await expectSameAnswer(test, base, {
              ...c,
              name: `${c.name}, If-None-Match`,
              headers: { ...c.headers, 'if-none-match': answer.headers.etag },
              status: 304,
            });
          }
        }
      }
      for (const c of cases(fx)) await expectSameAnswer(test, base, c);

      // A bulk answer's ETag held by the client: 304 without a body, from the lane.
      const context = JSON.stringify({ context: { targetingKey: 'user-2' } });
      const first = await overHttp(base, {
        name: 'bulk',
        url: BULK,
        headers: { ...bearer(fx.sdk), ...JSON_HEADERS },
        body: context,
        way: 'lane',
        status: 200,
      });
      const etag = first.headers.etag!;
      await expectSameAnswer(test, base, {
        name: 'OFREP bulk, If-None-Match',
        url: BULK,
        headers: { ...bearer(fx.sdk), ...JSON_HEADERS, 'if-none-match': etag },
        body: context,
        way: 'lane',
        status: 304,
      });
      await expectSameAnswer(test, base, {
        name: 'OFREP bulk, another tag',
        url: BULK,
        headers: { ...bearer(fx.sdk), ...JSON_HEADERS, 'if-none-match': '"other"' },
        body: context,
        way: 'lane',
        status: 200,
      });

      // The legacy document's ETag: 304 from the lane, with no body.
      const config = await overHttp(base, {
        name: 'config',
        method: 'GET',
        url: CONFIG,
        headers: bearer(fx.sdk),
        body: '',
        way: 'lane',
        status: 200,
      });
      await expectSameAnswer(test, base, {
        name: 'config, If-None-Match',
        method: 'GET',
        url: CONFIG,
        headers: { ...bearer(fx.sdk), 'if-none-match': config.headers.etag! },
        body: '',
        way: 'lane',
        status: 304,
      });

      // A configuration that cannot be compiled: 500 from either way.
      await storeInvalidConfig(test, fx);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      await waitFor(
        async () =>
          (await test.app.inject({ method: 'POST', url: EVALUATE, headers: sdk, payload: '{"context":{}}' }))
            .statusCode === 500,
      );
      await expectSameAnswer(test, base, {
        name: 'evaluate, invalid config',
        url: EVALUATE,
        headers: sdk,
        body: '{"context":{}}',
        way: 'lane',
        status: 500,
      });
      await expectSameAnswer(test, base, {
        name: 'OFREP flag, invalid config',
        url: single('checkout'),
        headers: sdk,
        body: '{"context":{}}',
        way: 'lane',
        status: 500,
      });
      await expectSameAnswer(test, base, {
        name: 'OFREP bulk, invalid config',
        url: BULK,
        headers: sdk,
        body: '{"context":{}}',
        way: 'lane',
        status: 500,
      });

      // A revoked key: never served, whatever was cached.
      await revokeKey(test.app, fx, fx.sdk);
      await expectSameAnswer(test, base, {
        name: 'evaluate, revoked key',
        url: EVALUATE,
        headers: sdk,
        body: '{"context":{}}',
        way: 'framework',
        status: 401,
      });
      await expectSameAnswer(test, base, {
        name: 'OFREP bulk, revoked key',
        url: BULK,
        headers: sdk,
        body: '{"context":{}}',
        way: 'framework',
        status: 401,
      });
    });

    test("past the sync quota the lane answers 429 itself, with the error handler's body", async (t) => {
      const quotas = { configSyncs: 4, apps: 10, flags: 500 };
      const test = await buildTestApp(t, { dialect, config: { quotas: { free: quotas, pro: quotas } } });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const c: Case = {
        name: 'bulk',
        url: BULK,
        headers: { ...bearer(fx.pub), ...JSON_HEADERS },
        body: '{"context":{"targetingKey":"q"}}',
        way: 'lane',
        status: 200,
      };
      await expectSameAnswer(test, base, c); // syncs 1 and 2
      await expectSameAnswer(test, base, c); // 3 and 4
      const errors = test.app.fastLane.stats.errors;
      await expectSameAnswer(test, base, { ...c, status: 429 });
      await expectSameAnswer(test, base, {
        name: 'public config past the quota',
        method: 'GET',
        url: PUBLIC_CONFIG,
        headers: bearer(fx.pub),
        body: '',
        way: 'lane',
        status: 429,
      });
      assert.equal(test.app.fastLane.stats.errors, errors + 2);
      const refused = await overHttp(base, c);
      assert.match(refused.headers['retry-after']!, /^\d+$/);
      assert.equal(JSON.parse(refused.body).errorCode, 'MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED');
    });

    test('a handler runs once per request: what it throws is answered by the lane', async (t) => {
      const runs = { count: 0 };
      const test = await buildTestApp(t, {
        dialect,
        routes: (app) =>
          countingRoute(app, runs, () => {
            throw Object.assign(new Error('boom'), { statusCode: 503 });
          }),
      });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const c: Case = {
        name: 'throws',
        url: '/test/counting',
        headers: { ...bearer(fx.sdk), ...JSON_HEADERS },
        body: '{"n":1}',
        way: 'lane',
        status: 500,
      };
      await expectSameAnswer(test, base, c);
      assert.equal(runs.count, 2, 'once over HTTP, once through inject');
      // A body its schema refuses never reaches the handler.
      await expectSameAnswer(test, base, { ...c, name: 'refused body', body: '{"n":"x"}', status: 400 });
      assert.equal(runs.count, 2);
    });

    test('a hook the lane does not implement, or an error handler of its own, stops the app from starting', async (t) => {
      for (const [name, setUp] of [
        [
          'an onRequest hook',
          (scope: FastifyInstance) =>
            scope.addHook('onRequest', function rateLimit(_request, _reply, done) {
              done();
            }),
        ],
        ['an onSend hook', (scope: FastifyInstance) => scope.addHook('onSend', async function tracing() {})],
        ['an error handler', (scope: FastifyInstance) => scope.setErrorHandler(() => undefined)],
      ] as const) {
        await assert.rejects(
          buildTestApp(t, {
            dialect,
            routes: (app) =>
              void app.register(async (scope) => {
                setUp(scope);
                countingRoute(scope, { count: 0 }, () => {
                  throw new Error('never');
                });
              }),
          }),
          (err: Error) =>
            /fast lane route POST \/test\/counting/.test(err.message) &&
            (name === 'an error handler' ? /error handler/ : /rateLimit|tracing/).test(err.message),
          name,
        );
      }
    });

    test('with request logging at debug the lane still answers, and logs its request lines as Fastify does', async (t) => {
      const test = await buildTestApp(t, { dialect, captureLogs: true });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      await expectSameAnswer(test, base, {
        name: 'evaluate',
        url: EVALUATE,
        headers: { ...sdk, 'x-request-id': 'lane-1' },
        body: '{"context":{}}',
        way: 'lane',
        status: 200,
      });
      await expectSameAnswer(test, base, {
        name: 'evaluate with a query',
        url: `${EVALUATE}?x=1`,
        headers: { ...sdk, 'x-request-id': 'framework-1' },
        body: '{"context":{}}',
        way: 'framework',
        status: 200,
      });
      const lines = test
        .logs()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      // The moment, the port and the duration differ; everything else must not. The first two lines of
      // each id are the HTTP request's (the second two, through inject, are Fastify's either way).
      const shape = (reqId: string) =>
        lines
          .filter((l) => l.reqId === reqId)
          .slice(0, 2)
          .map(({ time: _t, responseTime, ...line }) => ({
            ...line,
            reqId: 'id',
            ...(typeof responseTime === 'number' ? { responseTime: 'ms' } : {}),
            ...(line.req ? { req: { ...(line.req as object), url: '/', remotePort: 0 } } : {}),
          }));
      assert.equal(shape('lane-1').length, 2, JSON.stringify(lines.filter((l) => l.reqId === 'lane-1')));
      assert.deepEqual(shape('lane-1'), shape('framework-1'));
      assert.equal(lines.find((l) => l.reqId === 'lane-1')!.level, 20, 'request lines of lane routes are at debug');
    });

    test('keep-alive connections carry lane and framework requests in turn', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      const bodies = ['{"flagKey":"limit","context":{"targetingKey":"a"}}', '{"context":', '{"context":{}}'];
      const served = test.app.fastLane.stats.served;
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          fetch(base + (i % 3 === 2 ? `${EVALUATE}?x=1` : EVALUATE), {
            method: 'POST',
            headers: sdk,
            body: bodies[i % 3],
          }).then(async (res) => [res.status, await res.json()] as const),
        ),
      );
      for (const [i, [status, json]] of answers.entries()) {
        if (i % 3 === 1) assert.equal(status, 400);
        else assert.equal(status, 200, JSON.stringify(json));
      }
      assert.ok(test.app.fastLane.stats.served > served && test.app.fastLane.stats.served < served + 60);
    });

    test('a client that leaves halfway through its body costs nothing but its connection', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      await expectSameAnswer(test, base, {
        name: 'warm',
        url: EVALUATE,
        headers: sdk,
        body: '{"context":{}}',
        way: 'lane',
        status: 200,
      });
      const { port } = new URL(base);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST ${EVALUATE} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${fx.sdk}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"context":`,
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
        socket.on('error', reject);
      });
      const served = test.app.fastLane.stats.served;
      await expectSameAnswer(test, base, {
        name: 'after the abort',
        url: EVALUATE,
        headers: sdk,
        body: '{"context":{}}',
        way: 'lane',
        status: 200,
      });
      assert.equal(test.app.fastLane.stats.served, served + 1);
    });
  });
}

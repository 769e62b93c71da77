// The fast lane (src/platform/fast-lane.ts) over real HTTP: every request to the lane's routes must get
// the answer Fastify gives the same request (app.inject never goes through the lane), header for header
// and byte for byte, whichever way it goes: answered by the lane (errors included) or declined before
// anything of it was read and left to Fastify. The generic cases are generated from the lane's own route
// table, so a route that joins the lane is tested without anyone remembering to add it here; the
// hand-written ones are in fast-lane-cases.fixtures.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { bearer } from '../helpers/fixtures.js';
import { buildTestApp, dialects } from '../helpers/test-app.js';
import type { EnvironmentFixture } from '../helpers/delivery-fixtures.js';
import {
  flagsFixture,
  revokeKey,
  storeInvalidConfig,
} from '../../src/modules/delivery/evaluation/evaluation.fixtures.js';
import { TOKEN_TYPES, type TokenType } from '../../src/platform/tokens.js';
import type { FastLaneRouteInfo } from '../../src/platform/fast-lane-state.js';
import { waitFor } from '../helpers/polling.js';
import { cases } from './fast-lane-cases.fixtures.js';
import {
  BULK,
  CONFIG,
  EVALUATE,
  expectSameAnswer,
  JSON_HEADERS,
  listening,
  overHttp,
  single,
  type Case,
  type Way,
} from './fast-lane.fixtures.js';

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
  });
}

// Deeply nested JSON bodies: refused with 400 in each route's error shape before anything walks
// them (they answered 500, "Maximum call stack size exceeded", on OFREP, evaluate and idempotent
// flag writes), on every route that takes JSON, through Fastify and through the fast lane.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, uniqueKey } from '../../test/helpers/fixtures.js';
import { buildTestApp, dialects } from '../../test/helpers/test-app.js';
import { flagsFixture } from '../modules/delivery/evaluation/evaluation.fixtures.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH, parseJsonBody } from './json-depth.js';

const nested = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);
/** A body whose field `field` nests 6,000 levels: the depth that overflowed the stack. */
const deepBody = (field: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ ...extra, [field]: '__deep__' }).replace('"__deep__"', nested(6000));
const LEGACY_ROUTES = new Set(['POST /api/v1/evaluate']);

describe('exceedsJsonDepth', () => {
  test('counts arrays and objects; the body itself is level 1', () => {
    assert.equal(exceedsJsonDepth(nested(MAX_JSON_DEPTH)), false);
    assert.equal(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1)), true);
    assert.equal(exceedsJsonDepth('{"a":'.repeat(64) + '1' + '}'.repeat(64)), false);
    assert.equal(exceedsJsonDepth('{"a":'.repeat(65) + '1' + '}'.repeat(65)), true);
    assert.equal(exceedsJsonDepth('[{"a":[{}]}]', 3), true);
    assert.equal(exceedsJsonDepth('[{"a":[{}]}]', 4), false);
    // Siblings do not add up: depth, not count.
    assert.equal(exceedsJsonDepth(`[${Array.from({ length: 1000 }, () => '[[1]]').join(',')}]`, 3), false);
  });

  test('brackets inside strings, escaped quotes included, do not count', () => {
    assert.equal(exceedsJsonDepth(JSON.stringify({ text: '['.repeat(1000) }), 2), false);
    assert.equal(exceedsJsonDepth(JSON.stringify({ text: '\\"[[[[', b: '"{{{{' }), 1), false);
    assert.equal(exceedsJsonDepth(JSON.stringify(['\\', [[1]]]), 2), true);
  });

  test('parseJsonBody parses what is shallow enough and refuses the rest before parsing', () => {
    assert.deepEqual(parseJsonBody('{"a":[1,{"b":null}]}'), { a: [1, { b: null }] });
    assert.throws(
      () => parseJsonBody(nested(100_000)),
      (error: any) => error.statusCode === 400 && error.code === 'validation_error',
    );
    assert.throws(() => parseJsonBody('{"a":'), SyntaxError);
  });
});

function expectShape(route: string, res: LightMyRequestResponse | { statusCode: number; body: string }) {
  assert.equal(res.statusCode, 400, `${route}: ${res.body}`);
  const body = JSON.parse(res.body);
  const path = route.split(' ')[1]!;
  if (path.startsWith('/api/ofrep/')) {
    assert.equal(body.errorCode, 'INVALID_CONTEXT', `${route}: ${res.body}`);
    assert.match(body.errorDetails, /64 levels/);
  } else if (LEGACY_ROUTES.has(route)) {
    assert.equal(body.error, 'Bad Request', `${route}: ${res.body}`);
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.match(body.message, /64 levels/);
  } else {
    assert.equal(body.error?.code, 'validation_error', `${route}: ${res.body}`);
    assert.match(body.error.message, /64 levels/);
    assert.deepEqual(body.error.details, [{ path: '/', message: 'nests arrays and objects more than 64 levels deep' }]);
  }
}

for (const dialect of dialects) {
  describe(`deeply nested bodies on ${dialect}`, () => {
    test('every route that takes JSON answers 400 in its own error shape', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const routes: string[] = [];
      for (const [path, operations] of Object.entries<Record<string, any>>(spec.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (!operation?.requestBody?.content?.['application/json']) continue;
          const route = `${method.toUpperCase()} ${path}`;
          routes.push(route);
          const url = path.replace(/\{[^}]+\}/g, 'x');
          const res = await app.inject({
            method: method.toUpperCase() as 'POST',
            url,
            headers: { 'content-type': 'application/json' },
            payload: deepBody('context'),
          });
          expectShape(route, res);
        }
      }
      for (const known of [
        'POST /api/v1/evaluate',
        'PATCH /api/v1/flags',
        'POST /api/ofrep/v1/evaluate/flags',
        'POST /api/v1/apps',
      ]) {
        assert.ok(routes.includes(known), `${known} is among the routes tried: ${routes.join(', ')}`);
      }
    });

    test('the bodies that answered 500, with the credentials they were sent with', async (t) => {
      const fixture = await buildTestApp(t, { dialect });
      const { app } = fixture;
      const fx = await flagsFixture(fixture);
      const send = (
        url: string,
        token: string,
        payload: string,
        method: 'POST' | 'PATCH' = 'POST',
        headers: Record<string, string> = {},
      ) =>
        app.inject({
          method,
          url,
          headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
          payload,
        });
      for (const token of [fx.sdk, fx.pub]) {
        expectShape(
          'POST /api/ofrep/v1/evaluate/flags',
          await send('/api/ofrep/v1/evaluate/flags', token, deepBody('context')),
        );
        expectShape(
          'POST /api/ofrep/v1/evaluate/flags/{key}',
          await send('/api/ofrep/v1/evaluate/flags/dark-mode', token, deepBody('context')),
        );
      }
      expectShape(
        'POST /api/v1/evaluate',
        await send('/api/v1/evaluate', fx.sdk, deepBody('defaultValue', { flagKey: 'dark-mode', context: {} })),
      );
      const flagBody = deepBody('metadata', {
        appId: fx.target.appId,
        env: 'prod',
        key: 'deep',
        type: 'bool',
        value: true,
      });
      expectShape(
        'PATCH /api/v1/flags',
        await send('/api/v1/flags', fx.admin, flagBody, 'PATCH', { 'idempotency-key': uniqueKey() }),
      );
      expectShape('PATCH /api/v1/flags', await send('/api/v1/flags', fx.admin, flagBody, 'PATCH'));
      // 64 levels are fine: a json flag value nested as deep as the limit allows.
      const atLimit = await app.inject({
        method: 'POST',
        url: '/api/v1/evaluate',
        headers: { ...bearer(fx.sdk), 'content-type': 'application/json' },
        payload: JSON.stringify({ flagKey: 'dark-mode', context: {} }).replace('{}', nested(MAX_JSON_DEPTH - 1, '{}')),
      });
      assert.notEqual(atLimit.statusCode, 500, atLimit.body);
    });

    test('over real HTTP, where the fast lane parses the evaluation bodies itself', async (t) => {
      const fixture = await buildTestApp(t, { dialect });
      const { app } = fixture;
      const fx = await flagsFixture(fixture);
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const post = async (url: string, token: string, body: string) => {
        const res = await fetch(base + url, {
          method: 'POST',
          headers: { ...bearer(token), 'content-type': 'application/json' },
          body,
        });
        return { statusCode: res.status, body: await res.text() };
      };
      for (const token of [fx.sdk, fx.pub]) {
        expectShape(
          'POST /api/ofrep/v1/evaluate/flags',
          await post('/api/ofrep/v1/evaluate/flags', token, deepBody('context')),
        );
        expectShape(
          'POST /api/ofrep/v1/evaluate/flags/{key}',
          await post('/api/ofrep/v1/evaluate/flags/dark-mode', token, deepBody('context')),
        );
      }
      expectShape(
        'POST /api/v1/evaluate',
        await post('/api/v1/evaluate', fx.sdk, deepBody('defaultValue', { flagKey: 'dark-mode', context: {} })),
      );
      expectShape(
        'POST /api/v1/evaluate',
        await post('/api/v1/evaluate', fx.sdk, deepBody('context', { flagKey: 'dark-mode' })),
      );
    });
  });
}

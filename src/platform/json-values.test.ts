// Numbers that are not finite once parsed (`1e400` is Infinity) and prototype keys: refused with a
// 400 naming where they are, on every route that takes JSON, through Fastify and through the fast
// lane (issue 18: 1e400 was accepted, summed into NaN and failed other tenants' batches; a
// `__proto__` key was answered "not valid JSON").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { bearer } from '../../test/helpers/fixtures.js';
import { buildTestApp, dialects } from '../../test/helpers/test-app.js';
import { flagsFixture } from '../modules/delivery/evaluation/evaluation.fixtures.js';
import { parseJsonBody } from './json-depth.js';
import { findRefusedValue } from './json-values.js';

const LEGACY_ROUTES = new Set(['POST /api/v1/evaluate']);
/** Routes whose bodies are evaluation contexts: a `__proto__` key there is an ordinary attribute. */
const CONTEXT_ROUTES = new Set([
  'POST /api/v1/evaluate',
  'POST /api/ofrep/v1/evaluate/flags',
  'POST /api/ofrep/v1/evaluate/flags/{key}',
]);

describe('findRefusedValue', () => {
  test('finds the first non-finite number and names it with a JSON Pointer', () => {
    assert.equal(findRefusedValue({ a: [1, { b: 2 }], c: 'Infinity', d: null }), null);
    assert.deepEqual(findRefusedValue(JSON.parse('{"a":[1,{"b":1e400}]}')), {
      kind: 'non-finite',
      path: '/a/1/b',
      problem: 'is not a finite number',
    });
    assert.deepEqual(findRefusedValue(JSON.parse('[-1e999]'))?.path, '/0');
    assert.deepEqual(findRefusedValue(JSON.parse('1e400'))?.path, '/');
    // Keys are escaped as JSON Pointer segments.
    assert.equal(findRefusedValue(JSON.parse('{"a/b":{"c~d":1e309}}'))?.path, '/a~1b/c~0d');
    // Underflow is finite (0), and so is the largest double.
    assert.equal(findRefusedValue(JSON.parse('{"a":1e-400,"b":1.7976931348623157e308}')), null);
    assert.equal(findRefusedValue(JSON.parse(`{"a":1${'0'.repeat(400)}}`))?.path, '/a');
  });

  test('refuses prototype keys unless allowed, and says which key', () => {
    const proto = JSON.parse('{"a":{"__proto__":{"admin":true}}}');
    assert.deepEqual(findRefusedValue(proto), {
      kind: 'prototype-key',
      path: '/a/__proto__',
      problem: 'is the key "__proto__", which is refused',
    });
    assert.equal(findRefusedValue(proto, { prototypeKeys: 'allow' }), null);
    const ctor = JSON.parse('{"x":[{"constructor":{"prototype":{"admin":true}}}]}');
    assert.deepEqual(findRefusedValue(ctor)?.path, '/x/0/constructor/prototype');
    assert.match(findRefusedValue(ctor)!.problem, /"constructor"/);
    // A constructor key that holds no prototype is an ordinary key.
    assert.equal(findRefusedValue({ constructor: 'Car' }), null);
    // Escaped spellings are the same key once parsed.
    assert.equal(findRefusedValue(JSON.parse('{"\\u005f_proto__":1}'))?.path, '/__proto__');
  });

  test('refuses U+0000 in strings and keys unless allowed; JSON text without the escape is not searched', () => {
    assert.deepEqual(findRefusedValue(JSON.parse('{"a":["ok","x\\u0000y"]}')), {
      kind: 'nul-character',
      path: '/a/1',
      problem: 'contains the character U+0000, which text cannot hold',
    });
    assert.equal(findRefusedValue(JSON.parse('{"a":{"k\\u0000":1}}'))?.path, '/a/k\u0000');
    assert.equal(findRefusedValue(JSON.parse('{"a":"x\\u0000"}'), { nulCharacters: 'allow' }), null);
    // A body parsed from text without the escape cannot hold the character.
    assert.equal(findRefusedValue({ a: 'x\u0000' }, {}, '{"a":"x"}'), null);
    assert.equal(findRefusedValue({ a: 'x\u0000' }, {}, '{"a":"x\\u0000"}')?.path, '/a');
    assert.equal(
      findRefusedValue(JSON.parse('{"a":"\\\\u0000"}')),
      null,
      'an escaped backslash before u0000 is no NUL',
    );
  });

  test('leaves the items of a route-checked array to the route, and checks everything else', () => {
    const batch = JSON.parse('{"events":[{"metricValue":1e400},{"__proto__":1}],"sdk":{"n":1e400}}');
    assert.equal(findRefusedValue(batch, { itemsAt: 'events' })?.path, '/sdk/n');
    assert.equal(findRefusedValue(JSON.parse('{"events":[{"v":1e400}]}'), { itemsAt: 'events' }), null);
    // Only an array there is left to the route.
    assert.equal(findRefusedValue(JSON.parse('{"events":{"v":1e400}}'), { itemsAt: 'events' })?.path, '/events/v');
  });

  test('parseJsonBody refuses them with a 400 that names the path', () => {
    assert.throws(
      () => parseJsonBody('{"n":1e400}'),
      (e: any) =>
        e.statusCode === 400 &&
        e.code === 'validation_error' &&
        e.message === '/n is not a finite number.' &&
        e.details[0].path === '/n',
    );
    assert.throws(
      () => parseJsonBody('{"__proto__":{}}'),
      (e: any) => e.statusCode === 400 && /__proto__/.test(e.message),
    );
    assert.deepEqual(
      parseJsonBody('{"__proto__":{"a":1}}', { prototypeKeys: 'allow' }),
      JSON.parse('{"__proto__":{"a":1}}'),
    );
  });
});

function expectRefused(
  route: string,
  res: LightMyRequestResponse | { statusCode: number; body: string },
  path: string,
  text: RegExp,
) {
  assert.equal(res.statusCode, 400, `${route}: ${res.body}`);
  const body = JSON.parse(res.body);
  if (route.split(' ')[1]!.startsWith('/api/ofrep/')) {
    assert.equal(body.errorCode, 'INVALID_CONTEXT', `${route}: ${res.body}`);
    assert.match(body.errorDetails, text);
    assert.ok(body.errorDetails.startsWith(path), `${route}: ${res.body}`);
  } else if (LEGACY_ROUTES.has(route)) {
    assert.equal(body.code, 'VALIDATION_ERROR', `${route}: ${res.body}`);
    assert.match(body.message, text);
    assert.deepEqual(
      body.details.map((d: any) => d.path),
      [path],
    );
  } else {
    assert.equal(body.error?.code, 'validation_error', `${route}: ${res.body}`);
    assert.match(body.error.message, text, `${route}: ${res.body}`);
    assert.deepEqual(
      body.error.details.map((d: any) => d.path),
      [path],
      `${route}: ${res.body}`,
    );
    assert.ok(body.error.requestId);
  }
}

for (const dialect of dialects) {
  describe(`refused JSON values on ${dialect}`, () => {
    test('every route that takes JSON answers 400 naming the non-finite number or the prototype key', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const routes: string[] = [];
      for (const [path, operations] of Object.entries<Record<string, any>>(spec.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (!operation?.requestBody?.content?.['application/json']) continue;
          const route = `${method.toUpperCase()} ${path}`;
          routes.push(route);
          const url = path.replace(/\{[^}]+\}/g, 'x');
          const send = (payload: string) =>
            app.inject({
              method: method.toUpperCase() as 'POST',
              url,
              headers: { 'content-type': 'application/json' },
              payload,
            });
          expectRefused(route, await send('{"context":{"n":[1,-1e400]},"a":1}'), '/context/n/1', /not a finite number/);
          expectRefused(route, await send(`{"value":1${'0'.repeat(320)}}`), '/value', /not a finite number/);
          if (CONTEXT_ROUTES.has(route)) continue;
          expectRefused(route, await send('{"name":"a\\u0000b"}'), '/name', /U\+0000/);
          expectRefused(
            route,
            await send('{"a":{"__proto__":{"admin":true}}}'),
            '/a/__proto__',
            /"__proto__", which is refused/,
          );
          expectRefused(
            route,
            await send('{"constructor":{"prototype":{"admin":true}}}'),
            '/constructor/prototype',
            /"constructor"/,
          );
        }
      }
      for (const known of [
        'POST /api/v1/evaluate',
        'PATCH /api/v1/flags',
        'POST /api/ofrep/v1/evaluate/flags',
        'POST /api/v1/events/batch',
        'POST /api/v1/experiments/power-analysis',
      ]) {
        assert.ok(routes.includes(known), `${known} is among the routes tried: ${routes.join(', ')}`);
      }
    });

    test('with credentials: flag values and contexts, through Fastify and over real HTTP through the fast lane', async (t) => {
      const fixture = await buildTestApp(t, { dialect });
      const { app } = fixture;
      const fx = await flagsFixture(fixture);
      const flag = `{"appId":"${fx.target.appId}","env":"prod","key":"huge","type":"number","value":1e400}`;
      const patched = await app.inject({
        method: 'PATCH',
        url: '/api/v1/flags',
        headers: { ...bearer(fx.admin), 'content-type': 'application/json' },
        payload: flag,
      });
      expectRefused('PATCH /api/v1/flags', patched, '/value', /not a finite number/);
      const json = `{"appId":"${fx.target.appId}","env":"prod","key":"huge","type":"json","value":{"a":[1e400]}}`;
      expectRefused(
        'PATCH /api/v1/flags',
        await app.inject({
          method: 'PATCH',
          url: '/api/v1/flags',
          headers: { ...bearer(fx.admin), 'content-type': 'application/json' },
          payload: json,
        }),
        '/value/a/0',
        /not a finite number/,
      );
      const listed = await app.inject({
        method: 'GET',
        url: `/api/v1/flags?appId=${fx.target.appId}&env=prod`,
        headers: bearer(fx.admin),
      });
      assert.ok(!listed.body.includes('"huge"'), 'nothing was stored');

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
      const context = '{"targetingKey":"u","age":1e400}';
      for (const token of [fx.sdk, fx.pub]) {
        expectRefused(
          'POST /api/ofrep/v1/evaluate/flags',
          await post('/api/ofrep/v1/evaluate/flags', token, `{"context":${context}}`),
          '/context/age',
          /not a finite number/,
        );
        expectRefused(
          'POST /api/ofrep/v1/evaluate/flags/{key}',
          await post('/api/ofrep/v1/evaluate/flags/dark-mode', token, `{"context":${context}}`),
          '/context/age',
          /not a finite number/,
        );
      }
      expectRefused(
        'POST /api/v1/evaluate',
        await post('/api/v1/evaluate', fx.sdk, `{"flagKey":"limit","context":${context}}`),
        '/context/age',
        /not a finite number/,
      );
      expectRefused(
        'POST /api/v1/evaluate',
        await post('/api/v1/evaluate', fx.sdk, '{"flagKey":"limit","context":{},"defaultValue":-1e400}'),
        '/defaultValue',
        /not a finite number/,
      );
      // A prototype key or a U+0000 in a context is still an ordinary attribute there (nothing stores it).
      const proto = await post(
        '/api/v1/evaluate',
        fx.sdk,
        '{"flagKey":"checkout","context":{"targetingKey":"u\\u0000","__proto__":{"plan":"beta"}}}',
      );
      assert.equal(proto.statusCode, 200, proto.body);
      // And finite numbers still evaluate.
      const fine = await post(
        '/api/v1/evaluate',
        fx.sdk,
        '{"flagKey":"limit","context":{"targetingKey":"u","age":1.7976931348623157e308}}',
      );
      assert.equal(fine.statusCode, 200, fine.body);
    });

    test('query strings: a number written past the float range is refused, not read as Infinity', async (t) => {
      const fixture = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(fixture);
      for (const limit of ['1e400', 'Infinity', '-Infinity']) {
        const res = await fixture.app.inject({
          method: 'GET',
          url: `/api/v1/changes?appId=${fx.target.appId}&limit=${limit}`,
          headers: bearer(fx.admin),
        });
        assert.equal(res.statusCode, 400, `${limit}: ${res.body}`);
        assert.equal(res.json().error.code, 'validation_error');
      }
    });
  });
}

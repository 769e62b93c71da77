// The contract's error handling on every route: request ids, 404 JSON, 413 past 1 MiB, malformed
// bodies, unknown fields, wrong types, over-long strings, and 500s that leak nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildTestApp, dialects, type TestDatabase } from '../../test/helpers/test-app.js';
import { call, expectError, expectValidation, userWithApp } from '../../test/helpers/fixtures.js';

const ERROR_FIELDS = new Set(['code', 'message', 'resolution', 'requestId', 'details', 'metadata']);
const GENERATED_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;
const MIB = 1024 * 1024;
const SECRET_DETAIL = 'SELECT password_hash FROM users WHERE token_hash = 42';

/** Routes that fail the ways a handler can: a thrown error, a failing query, a non-Error throw. */
function faultyRoutes(app: FastifyInstance, database: TestDatabase) {
  app.get('/__test/throw', async () => {
    throw new Error(SECRET_DETAIL);
  });
  app.get('/__test/sql', async () => sql`SELECT secret_column FROM no_such_table_xyz`.execute(database.handle.db));
  app.get('/__test/status', async () => {
    throw Object.assign(new Error(`upstream said ${SECRET_DETAIL}`), { statusCode: 502, code: 'E_UPSTREAM' });
  });
  app.get('/__test/object', async () => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a careless dependency may throw
    throw { message: SECRET_DETAIL, stack: 'at secret (/srv/ensign/src/secret.ts:1:1)' };
  });
}

/** Body routes of the foundation, each with a valid payload for an app owner. */
function bodyRoutes(appId: string, keyId: string) {
  return [
    { method: 'POST' as const, url: '/api/v1/apps', payload: { name: 'Shop', slug: 'shop-two' }, stringField: 'name' },
    { method: 'POST' as const, url: '/api/v1/keys', payload: { appId, env: 'dev', type: 'sdk' }, stringField: 'appId' },
    { method: 'PATCH' as const, url: '/api/v1/keys', payload: { keyId, action: 'revoke' }, stringField: 'keyId' },
    {
      method: 'POST' as const,
      url: '/api/v1/cli-token',
      payload: { flow: 'signIn', email: 'x@example.com', password: 'password1' },
      stringField: 'email',
    },
  ];
}

for (const dialect of dialects) {
  describe(`error handling on ${dialect}`, () => {
    test('every response carries X-Request-Id: a valid incoming one is echoed, otherwise one is made', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const responses = [
        await call(app, 'GET', '/api'),
        await call(app, 'GET', '/nope'),
        await call(app, 'GET', '/api/v1/apps'),
        await call(app, 'POST', '/api/v1/cli-token', { payload: {} }),
        await call(app, 'POST', '/api/v1/cli-token', {
          payload: { flow: 'signIn', email: 'a@b.co', password: 'x'.repeat(MIB) },
        }),
        await call(app, 'GET', '/api/%zz'),
        await call(app, 'GET', '/docs'),
      ];
      for (const res of responses)
        assert.match(String(res.headers['x-request-id']), GENERATED_ID, `${res.statusCode} ${res.body.slice(0, 80)}`);
      assert.equal(new Set(responses.map((r) => r.headers['x-request-id'])).size, responses.length);
      for (const id of ['abc-123.DEF:9_x', 'r'.repeat(128)]) {
        const res = await call(app, 'GET', '/nope', { headers: { 'x-request-id': id } });
        assert.equal(res.headers['x-request-id'], id);
        assert.equal(res.json().error.requestId, id);
      }
      for (const id of ['has space', 'r'.repeat(129), 'semi;colon', '']) {
        const res = await call(app, 'GET', '/api', { headers: { 'x-request-id': id } });
        assert.match(String(res.headers['x-request-id']), GENERATED_ID, JSON.stringify(id));
      }
    });

    test('unknown routes and methods are 404 JSON; undecodable URLs are 400 in the same shape', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      for (const [method, url] of [
        ['GET', '/nope'],
        ['GET', '/api/v2'],
        ['PUT', '/api/v1/apps'],
        ['POST', '/api/v1/changes'],
        ['DELETE', '/api/v1/apps?appId=x'],
      ] as const) {
        const res = await call(app, method, url);
        const error = expectError(res, 404, 'not_found');
        assert.ok(error.message.includes(url.split('?')[0]!));
      }
      expectValidation(await call(app, 'GET', '/api/%zz'));
      // Under the OFREP prefix, the same failures have OFREP's error body (a path parameter past the
      // router's limit is 414).
      for (const [url, status] of [
        [`/api/ofrep/v1/evaluate/flags/${'k'.repeat(600)}`, 414],
        ['/api/ofrep/v1/evaluate/flags/%zz', 400],
      ] as const) {
        const res = await call(app, 'POST', url);
        assert.equal(res.statusCode, status, res.body);
        assert.match(String(res.headers['x-request-id']), /^req_/);
        assert.deepEqual(Object.keys(res.json()).sort(), ['errorCode', 'errorDetails']);
        assert.equal(res.json().errorCode, 'GENERAL');
        // Raised before the scope's CORS hook, yet readable by the browser its preflight allowed.
        assert.equal(res.headers['access-control-allow-origin'], '*', url);
        assert.match(String(res.headers['access-control-expose-headers']), /X-Request-Id/);
      }
    });

    test('bodies past 1 MiB are 413 payload_too_large on every body route, and change nothing', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await userWithApp(app);
      for (const r of bodyRoutes(s.appId, s.body.keys[0].id)) {
        const huge = { ...r.payload, [r.stringField]: 'x'.repeat(MIB) };
        const res = await call(app, r.method, r.url, { token: s.user.token, idem: true, payload: huge });
        expectError(res, 413, 'payload_too_large');
        // Just under the limit the body is read and judged by its schema instead.
        const under = { ...r.payload, [r.stringField]: 'x'.repeat(MIB - 200) };
        expectValidation(
          await call(app, r.method, r.url, { token: s.user.token, idem: true, payload: under }),
          `/${r.stringField}`,
        );
      }
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: s.user.token })).json().apps.length, 1);
      const keys = (await call(app, 'GET', `/api/v1/keys?appId=${s.appId}`, { token: s.user.token })).json().keys;
      assert.equal(keys.length, 4);
      assert.ok(keys.every((k: any) => k.status === 'active'));
    });

    test('malformed, empty, non-object and poisoned JSON bodies are 400 validation_error', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await userWithApp(app);
      const json = { 'content-type': 'application/json' };
      for (const r of bodyRoutes(s.appId, s.body.keys[0].id)) {
        for (const payload of [
          '{"name":',
          '{name: "x"}',
          '',
          'null',
          '[]',
          '"text"',
          '42',
          '{"__proto__":{"admin":true}}',
        ]) {
          const res = await call(app, r.method, r.url, { token: s.user.token, idem: true, payload, headers: json });
          expectValidation(res);
        }
      }
      // Routes without a body accept clients that declare JSON on every request.
      assert.equal(
        (await call(app, 'DELETE', `/api/v1/keys?keyId=${s.body.keys[0].id}`, { token: s.user.token, headers: json }))
          .statusCode,
        200,
      );
      const form = await call(app, 'POST', '/api/v1/apps', {
        token: s.user.token,
        idem: true,
        payload: 'name=Shop&slug=shop',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectError(form, 415, 'unsupported_media_type');
      // Text is not JSON either, even when it holds JSON: 415, not a schema error.
      for (const r of bodyRoutes(s.appId, s.body.keys[0].id)) {
        const text = await call(app, r.method, r.url, {
          token: s.user.token,
          idem: true,
          payload: JSON.stringify(r.payload),
          headers: { 'content-type': 'text/plain' },
        });
        expectError(text, 415, 'unsupported_media_type');
      }
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: s.user.token })).json().apps.length, 1);
    });

    test('unknown fields, wrong types and over-long strings are 400 with details naming the field', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await userWithApp(app);
      for (const r of bodyRoutes(s.appId, s.body.keys[0].id)) {
        const extra = expectValidation(
          await call(app, r.method, r.url, {
            token: s.user.token,
            idem: true,
            payload: { ...r.payload, isAdmin: true },
          }),
          '/isAdmin',
        );
        assert.deepEqual(extra.details, [{ path: '/isAdmin', message: 'is not an allowed field' }]);
        for (const wrong of [123, true, null, ['x'], { x: 1 }]) {
          expectValidation(
            await call(app, r.method, r.url, {
              token: s.user.token,
              idem: true,
              payload: { ...r.payload, [r.stringField]: wrong },
            }),
            `/${r.stringField}`,
          );
        }
        expectValidation(
          await call(app, r.method, r.url, {
            token: s.user.token,
            idem: true,
            payload: { ...r.payload, [r.stringField]: 'x'.repeat(300) },
          }),
          `/${r.stringField}`,
        );
      }
      for (const url of [
        `/api/v1/keys?appId=${'a'.repeat(129)}`,
        `/api/v1/envs?appId=${'a'.repeat(129)}`,
        `/api/v1/changes?appId=${'a'.repeat(129)}`,
        `/api/v1/keys?appId=${s.appId}&env=${'e'.repeat(129)}`,
      ]) {
        const error = expectValidation(await call(app, 'GET', url, { token: s.user.token }));
        assert.match(error.details![0]!.path, /^querystring\./);
      }
      expectValidation(
        await call(app, 'DELETE', `/api/v1/keys?keyId=${'k'.repeat(129)}`, { token: s.user.token }),
        'querystring.keyId',
      );
      const keys = (await call(app, 'GET', `/api/v1/keys?appId=${s.appId}`, { token: s.user.token })).json().keys;
      assert.ok(keys.length === 4 && keys.every((k: any) => k.status === 'active'));
    });

    test('error bodies hold only the contract fields', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await userWithApp(app);
      const responses = [
        await call(app, 'GET', '/nope'),
        await call(app, 'GET', '/api/v1/apps'),
        await call(app, 'GET', `/api/v1/keys?appId=app_missing`, { token: s.user.token }),
        await call(app, 'POST', '/api/v1/apps', { token: s.user.token, payload: { name: 'x' } }),
        await call(app, 'POST', '/api/v1/apps', {
          token: s.user.token,
          idem: true,
          payload: { name: 'x', slug: s.body.app.slug },
        }),
      ];
      for (const res of responses) {
        const body = res.json();
        assert.deepEqual(Object.keys(body), ['error'], res.body);
        for (const k of Object.keys(body.error)) assert.ok(ERROR_FIELDS.has(k), `unexpected error field ${k}`);
        assert.match(body.error.code, /^[a-z]+(_[a-z]+)*$/);
      }
    });

    test('a 500 says internal_error and leaks neither message, stack nor SQL; the log keeps the cause', async (t) => {
      const { app, logs } = await buildTestApp(t, { dialect, captureLogs: true, routes: faultyRoutes });
      for (const url of ['/__test/throw', '/__test/sql', '/__test/status', '/__test/object']) {
        const res = await call(app, 'GET', url);
        const error = expectError(res, 500, 'internal_error');
        assert.equal(error.message, 'An unexpected error occurred.');
        for (const leak of [
          'SELECT',
          'password_hash',
          'no_such_table',
          'secret',
          'upstream',
          ' at ',
          '.ts:',
          'Error',
          'E_UPSTREAM',
        ]) {
          assert.ok(!res.body.includes(leak), `${url} leaks "${leak}": ${res.body}`);
        }
        assert.ok(logs().includes(error.requestId), 'the failure is logged with its request id');
      }
      assert.ok(logs().includes('no_such_table_xyz'), 'the operator sees the cause in the log');
    });
  });
}

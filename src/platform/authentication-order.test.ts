// Credentials are checked before the request is validated, on every route that needs one: a caller
// without a valid credential of an accepted type learns nothing of a route's schema, and the
// contract's 401 codes win over 400. The routes come from the generated OpenAPI document, so a new
// route is covered without being listed here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../test/helpers/test-app.js';
import { call, createKey, userWithApp } from '../../test/helpers/fixtures.js';

interface Operation {
  security?: unknown[];
  requestBody?: unknown;
  parameters?: { in: string; required?: boolean }[];
}

test('every secured route with a body or required query answers 401 before 400 to a bad request', async (t) => {
  const { app } = await buildTestApp(t, { dialect: 'sqlite' });
  const s = await userWithApp(app);
  const revoked = await createKey(app, s.user.token, { appId: s.appId, type: 'admin' });
  const res = await call(app, 'PATCH', '/api/v1/keys', {
    token: s.user.token,
    payload: { keyId: revoked.id, action: 'revoke' },
  });
  assert.equal(res.statusCode, 200, res.body);
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };

  let checked = 0;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!op.security || op.security.length === 0) continue;
      const needsQuery = (op.parameters ?? []).some((p) => p.in === 'query' && p.required);
      if (!op.requestBody && !needsQuery) continue;
      const url = path.replace(/\{[^}]+\}/g, 'x_1');
      // An empty body and no query: invalid for every such route.
      const send = (token?: string) =>
        call(app, method.toUpperCase() as never, url, { token, ...(op.requestBody ? { payload: {} } : {}) });
      for (const [label, token] of [
        ['no credential', undefined],
        ['a revoked key', revoked.token],
        ['a malformed token', 'nonsense'],
      ] as const) {
        const answer = await send(token);
        assert.equal(answer.statusCode, 401, `${method.toUpperCase()} ${path} with ${label}: ${answer.body}`);
      }
      checked++;
    }
  }
  assert.ok(checked > 40, `checked ${checked} routes`);
});

test('an environment key on a management route is 401 before its body is validated', async (t) => {
  const { app } = await buildTestApp(t, { dialect: 'sqlite' });
  const s = await userWithApp(app);
  for (const url of ['/api/v1/insights/query', '/api/v1/flags', '/api/v1/experiments', '/api/v1/telemetry/exports']) {
    for (const token of [s.sdk.dev!]) {
      const answer = await call(app, url === '/api/v1/flags' ? 'PATCH' : 'POST', url, { token, payload: {} });
      assert.equal(answer.statusCode, 401, `${url}: ${answer.body}`);
      assert.match(answer.json().error.code, /unauthorized|wrong_key_type|WRONG_KEY_TYPE/i);
    }
  }
});

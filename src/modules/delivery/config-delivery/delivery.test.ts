import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import { bearer, createKey } from '../../../../test/helpers/fixtures.js';
import {
  environmentFixture,
  getConfig,
  putFlags,
  waitForVersionAbove,
  type FlagInput,
} from '../../../../test/helpers/delivery-fixtures.js';

const FLAGS: FlagInput[] = [
  {
    key: 'checkout',
    type: 'bool',
    value: false,
    clientEnabled: true,
    overrides: { 'user-42': true },
    metadata: { owner: 'team-secret-owner' },
    rules: [
      { id: 'beta', conditions: [{ attribute: 'plan', operator: 'in', values: ['beta'] }], serve: { value: true } },
    ],
    rollout: { percentage: 25, value: true },
  },
  { key: 'banner', type: 'string', value: 'hello', clientEnabled: true },
  {
    key: 'limit',
    type: 'number',
    value: 10,
    variants: [
      { key: 'low', value: 5, weight: 50 },
      { key: 'high', value: 20, weight: 50 },
    ],
  },
  { key: 'layout', type: 'json', value: { columns: 2 }, metadata: { note: 'x' } },
];

for (const dialect of dialects) {
  describe(`legacy delivery on ${dialect}`, () => {
    // Each test makes its own user, app and flags, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('sdk_ gets the whole envelope; pub_ only clientEnabled flags, no overrides or rules; never metadata', async () => {
      const { app, database } = shared();
      const fx = await environmentFixture(app);
      await putFlags(app, database.handle, database.pgSchema, fx, FLAGS);

      const server = await getConfig(app, fx.sdk);
      assert.equal(server.statusCode, 200, server.body);
      assert.equal(server.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(server.headers['cache-control'], 'private, no-cache');
      assert.match(String(server.headers.etag), /^"[A-Za-z0-9_-]{27}"$/);
      const body = server.json();
      assert.deepEqual(Object.keys(body), ['appId', 'env', 'version', 'doc', 'ttlSeconds']);
      assert.equal(body.appId, fx.target.appId);
      assert.equal(body.env, 'prod');
      assert.ok(body.version >= 1);
      assert.equal(body.ttlSeconds, 60);
      assert.deepEqual(body.doc.flags, {
        banner: { type: 'string', value: 'hello' },
        checkout: { type: 'bool', value: false },
        layout: { type: 'json', value: { columns: 2 } },
        limit: { type: 'number', value: 10 },
      });
      assert.deepEqual(body.doc.overrides, { checkout: { 'user-42': true } });
      assert.deepEqual(body.doc.rules, {
        checkout: [
          { id: 'beta', conditions: [{ attribute: 'plan', operator: 'in', values: ['beta'] }], serve: { value: true } },
          { id: '$rollout', conditions: [], serve: { rollout: { percentage: 25, value: true } } },
        ],
        limit: [
          {
            id: '$variants',
            conditions: [],
            serve: {
              variants: [
                { key: 'low', value: 5, weight: 50 },
                { key: 'high', value: 20, weight: 50 },
              ],
            },
          },
        ],
      });
      assert.doesNotMatch(server.body, /metadata|team-secret-owner/);

      const client = await getConfig(app, fx.pub, {}, '/api/v1/public-config');
      assert.equal(client.statusCode, 200, client.body);
      assert.deepEqual(client.json(), {
        appId: fx.target.appId,
        env: 'prod',
        version: body.version,
        ttlSeconds: 60,
        doc: {
          flags: { banner: { type: 'string', value: 'hello' }, checkout: { type: 'bool', value: false } },
          overrides: {},
          rules: {},
        },
      });
      assert.doesNotMatch(client.body, /metadata|user-42|team-secret-owner/);
      assert.notEqual(client.headers.etag, server.headers.etag);
    });

    test('If-None-Match with the current tag answers 304 without a body; lists and W/ match, other keys and routes never do', async () => {
      const { app, database } = shared();
      const fx = await environmentFixture(app);
      await putFlags(app, database.handle, database.pgSchema, fx, FLAGS.slice(0, 2));
      const first = await getConfig(app, fx.sdk);
      const etag = String(first.headers.etag);

      for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const res = await getConfig(app, fx.sdk, { 'if-none-match': header });
        assert.equal(res.statusCode, 304, header);
        assert.equal(res.body, '');
        assert.equal(res.headers.etag, etag);
        assert.equal(res.headers['cache-control'], 'private, no-cache');
        assert.ok(res.headers['x-sync-quota-remaining'] !== undefined);
      }
      assert.equal((await getConfig(app, fx.sdk, { 'if-none-match': '"something-else"' })).statusCode, 200);

      // Another sdk_ key of the same environment: same document, its own tag.
      const other = await createKey(app, fx.user.token, { appId: fx.target.appId, env: 'prod', type: 'sdk' });
      const otherRes = await getConfig(app, other.token, { 'if-none-match': etag });
      assert.equal(otherRes.statusCode, 200);
      assert.equal(otherRes.body, first.body);
      assert.notEqual(otherRes.headers.etag, etag);

      // The public route's tag is never accepted on the server route, nor the other way round.
      const pubTag = String((await getConfig(app, fx.pub, {}, '/api/v1/public-config')).headers.etag);
      assert.equal((await getConfig(app, fx.sdk, { 'if-none-match': pubTag })).statusCode, 200);
      assert.equal((await getConfig(app, fx.pub, { 'if-none-match': etag }, '/api/v1/public-config')).statusCode, 200);
      assert.equal(
        (await getConfig(app, fx.pub, { 'if-none-match': pubTag }, '/api/v1/public-config')).statusCode,
        304,
      );
    });

    test('a new version changes the tag and the old tag gets the new document', async () => {
      const { app, database } = shared();
      const fx = await environmentFixture(app);
      await putFlags(app, database.handle, database.pgSchema, fx, [FLAGS[1]!]);
      const before = await getConfig(app, fx.sdk);
      const version = before.json().version;
      await putFlags(app, database.handle, database.pgSchema, fx, [{ ...FLAGS[1]!, value: 'changed' }]);
      const { res: after } = await waitForVersionAbove(app, fx.sdk, version);
      assert.notEqual(after.headers.etag, before.headers.etag);
      assert.equal(after.json().doc.flags.banner.value, 'changed');
      const stale = await getConfig(app, fx.sdk, { 'if-none-match': String(before.headers.etag) });
      assert.equal(stale.statusCode, 200);
      assert.equal(stale.json().version, after.json().version);
    });

    test('an environment without flags serves version 0 with empty maps', async () => {
      const { app } = shared();
      const fx = await environmentFixture(app);
      const res = await getConfig(app, fx.sdk);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        appId: fx.target.appId,
        env: 'prod',
        version: 0,
        doc: { flags: {}, overrides: {}, rules: {} },
        ttlSeconds: 60,
      });
    });

    test('missing, invalid, wrong-type and revoked credentials get 401 in the legacy shape', async () => {
      const { app } = shared();
      const fx = await environmentFixture(app);
      const cases: [string, Record<string, string>, string][] = [
        ['/api/v1/config', {}, 'MISSING_CREDENTIAL'],
        ['/api/v1/config', { authorization: 'Bearer not-a-token' }, 'INVALID_CREDENTIAL'],
        ['/api/v1/config', bearer('sdk_unknownunknownunknownunknownunknownunknown0'), 'INVALID_CREDENTIAL'],
        ['/api/v1/config', bearer(fx.pub), 'WRONG_KEY_TYPE'],
        ['/api/v1/config', bearer(fx.user.token), 'WRONG_KEY_TYPE'],
        ['/api/v1/config', bearer(fx.admin), 'WRONG_KEY_TYPE'],
        ['/api/v1/public-config', bearer(fx.sdk), 'WRONG_KEY_TYPE'],
        ['/api/v1/public-config', {}, 'MISSING_CREDENTIAL'],
      ];
      for (const [url, headers, code] of cases) {
        const res = await app.inject({ method: 'GET', url, headers });
        assert.equal(res.statusCode, 401, `${url} ${code}`);
        const body = res.json();
        assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'resolution']);
        assert.equal(body.error, 'Unauthorized');
        assert.equal(body.code, code);
      }

      // Revoked: refused from the very next request, although the key was just used successfully.
      assert.equal((await getConfig(app, fx.sdk)).statusCode, 200);
      const keys = await app.inject({
        method: 'GET',
        url: `/api/v1/keys?appId=${fx.target.appId}&env=prod`,
        headers: bearer(fx.user.token),
      });
      const sdkKey = keys
        .json()
        .keys.find((k: { type: string; prefix: string }) => k.type === 'sdk' && fx.sdk.startsWith(k.prefix));
      const revoke = await app.inject({
        method: 'PATCH',
        url: '/api/v1/keys',
        headers: bearer(fx.user.token),
        payload: { keyId: sdkKey.id, action: 'revoke' },
      });
      assert.equal(revoke.statusCode, 200, revoke.body);
      const refused = await getConfig(app, fx.sdk);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().code, 'KEY_REVOKED');
    });

    test('CORS: the public route answers preflights for any origin; the server route has none', async () => {
      const { app } = shared();
      const fx = await environmentFixture(app);
      const preflight = await app.inject({
        method: 'OPTIONS',
        url: '/api/v1/public-config',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization, if-none-match',
        },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], '*');
      assert.match(String(preflight.headers['access-control-allow-methods']), /GET/);
      for (const h of ['Content-Type', 'Authorization', 'X-API-Key', 'If-None-Match'])
        assert.match(String(preflight.headers['access-control-allow-headers']), new RegExp(h));
      assert.equal(preflight.headers['access-control-allow-credentials'], undefined);

      const res = await getConfig(app, fx.pub, { origin: 'https://shop.example' }, '/api/v1/public-config');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(String(res.headers['access-control-expose-headers']), /ETag/);
      assert.match(String(res.headers['access-control-expose-headers']), /Retry-After/);
      const denied = await app.inject({
        method: 'GET',
        url: '/api/v1/public-config',
        headers: { origin: 'https://shop.example' },
      });
      assert.equal(denied.statusCode, 401);
      assert.equal(denied.headers['access-control-allow-origin'], '*', 'errors are readable by the page too');

      const serverPreflight = await app.inject({
        method: 'OPTIONS',
        url: '/api/v1/config',
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
      });
      assert.equal(serverPreflight.statusCode, 404);
      assert.equal(
        (await getConfig(app, fx.sdk, { origin: 'https://shop.example' })).headers['access-control-allow-origin'],
        undefined,
      );
    });
  });
}

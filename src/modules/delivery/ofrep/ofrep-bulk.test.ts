// OFREP bulk evaluation (POST /api/ofrep/v1/evaluate/flags): every flag with per-flag failures,
// the event stream entry, ETag and 304 per key and context, quota (429 with integer Retry-After),
// CORS for browsers, and the error statuses.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import { createKey } from '../../../../test/helpers/fixtures.js';
import {
  changeFlags,
  CLIENT_KEYS,
  FLAG_KEYS,
  flagsFixture,
  storeInvalidConfig,
} from '../evaluation/evaluation.fixtures.js';
import { bulk, byKey, expectOfrepError, OFREP } from './ofrep.fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

for (const dialect of dialects) {
  describe(`OFREP bulk evaluation on ${dialect}`, () => {
    // Each test makes its own user, app and flags (flagsFixture), so they share one app.
    const shared = suiteTestApp({ dialect });
    test('every flag the key may see, sorted, with per-flag failures inside a 200, and an sse event stream', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const server = await bulk(test.app, { context: {} }, { token: fx.sdk });
      assert.equal(server.statusCode, 200, server.body);
      assert.equal(server.headers['content-type'], 'application/json; charset=utf-8');
      assert.deepEqual(
        server.json().flags.map((f: { key: string }) => f.key),
        FLAG_KEYS,
      );
      const flags = byKey(server);
      assert.deepEqual(flags['dark-mode'], {
        key: 'dark-mode',
        value: false,
        reason: 'STATIC',
        metadata: { team: 'web', ticket: 42 },
      });
      assert.deepEqual(flags.limit, {
        key: 'limit',
        errorCode: 'TARGETING_KEY_MISSING',
        errorDetails: flags.limit!.errorDetails,
      });
      assert.equal(flags.banner!.errorCode, 'TARGETING_KEY_MISSING');
      const [stream, ...others] = server.json().eventStreams;
      assert.equal(others.length, 0);
      assert.equal(stream.type, 'sse');
      assert.equal(stream.inactivityDelaySec, 120);
      assert.match(stream.endpoint.requestUri, /^\/api\/ofrep\/v1\/events\?token=[A-Za-z0-9_.%-]+$/);

      const client = await bulk(test.app, { context: { targetingKey: 'user-1' } }, { token: fx.pub, apiKey: true });
      assert.deepEqual(
        client.json().flags.map((f: { key: string }) => f.key),
        CLIENT_KEYS,
      );
      assert.equal(
        byKey(client)['dark-mode']!.metadata,
        undefined,
        'pub_ keys get no metadata unless privacy lists it',
      );
      assert.equal(byKey(client).limit!.reason, 'SPLIT');
    });

    test('a strong ETag per key and evaluated answer: 304 without a body, 200 when the answer changes', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const context = { targetingKey: 'user-1', plan: 'free' };
      const first = await bulk(test.app, { context }, { token: fx.pub });
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
      assert.equal(first.headers['cache-control'], 'private, no-cache');

      const again = await bulk(test.app, { context }, { token: fx.pub, headers: { 'if-none-match': etag } });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal(again.headers.etag, etag);
      // Attributes no flag reads give the same answer, so the same tag: the provider keeps its tag
      // while its context changes, and the tag must follow the answer, not the version.
      const sameAnswer = await bulk(
        test.app,
        { context: { ...context, page: 'home' } },
        { token: fx.pub, headers: { 'if-none-match': etag } },
      );
      assert.equal(sameAnswer.statusCode, 304);
      const otherAnswer = await bulk(
        test.app,
        { context: { ...context, plan: 'beta', country: 'NO' } },
        { token: fx.pub, headers: { 'if-none-match': etag } },
      );
      assert.equal(otherAnswer.statusCode, 200);
      assert.equal(byKey(otherAnswer).checkout!.value, 'new');
      assert.notEqual(otherAnswer.headers.etag, etag);

      const secondKey = await createKey(test.app, fx.user.token, { appId: fx.target.appId, env: 'prod', type: 'pub' });
      const otherCredential = await bulk(
        test.app,
        { context },
        { token: secondKey.token, headers: { 'if-none-match': etag } },
      );
      assert.equal(otherCredential.statusCode, 200, 'a tag is bound to the credential');

      await changeFlags(test, fx, [{ key: 'dark-mode', type: 'bool', value: true, clientEnabled: true }]);
      await waitFor(
        async () =>
          (await bulk(test.app, { context }, { token: fx.pub, headers: { 'if-none-match': etag } })).statusCode === 200,
        1000,
      );
      const changed = await bulk(test.app, { context }, { token: fx.pub, headers: { 'if-none-match': etag } });
      assert.equal(byKey(changed)['dark-mode']!.value, true);
    });

    test('a change no flag of this answer shows keeps the tag (304)', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const first = await bulk(test.app, { context: {} }, { token: fx.pub });
      await changeFlags(test, fx, [{ key: 'internal', type: 'string', value: 'changed' }]);
      await new Promise((r) => setTimeout(r, 100));
      const after = await bulk(
        test.app,
        { context: {} },
        {
          token: fx.pub,
          headers: { 'if-none-match': String(first.headers.etag) },
          query: 'flagConfigEtag=7&flagConfigLastModified=1771622898',
        },
      );
      assert.equal(after.statusCode, 304);
    });

    test('400 INVALID_CONTEXT and PARSE_ERROR without a key; {} accepted; unknown fields ignored', async () => {
      const test = shared();
      const fx = await flagsFixture(test, []);
      assert.deepEqual((await bulk(test.app, { context: {} }, { token: fx.sdk })).json().flags, []);
      for (const payload of [{ context: { targetingKey: true } }, {}, { context: 1 }]) {
        expectOfrepError(await bulk(test.app, payload, { token: fx.sdk }), 400, 'INVALID_CONTEXT');
      }
      const raw = await test.app.inject({
        method: 'POST',
        url: `${OFREP}/evaluate/flags`,
        headers: { 'x-api-key': fx.sdk, 'content-type': 'application/json' },
        payload: 'nope',
      });
      expectOfrepError(raw, 400, 'PARSE_ERROR');
      expectOfrepError(await bulk(test.app, { context: {} }), 401, 'MISSING_CREDENTIAL');
      expectOfrepError(await bulk(test.app, { context: {} }, { token: fx.admin }), 403, 'WRONG_KEY_TYPE');
      expectOfrepError(
        await bulk(test.app, { context: { pad: 'x'.repeat(65 * 1024) } }, { token: fx.sdk }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });

    test('500 PARSE_ERROR when the stored configuration cannot be compiled', async (t) => {
      const test = await buildTestApp(t, { dialect, captureLogs: true });
      const fx = await flagsFixture(test);
      await storeInvalidConfig(test, fx);
      await waitFor(async () => (await bulk(test.app, { context: {} }, { token: fx.sdk })).statusCode === 500, 1000);
      expectOfrepError(await bulk(test.app, { context: {} }, { token: fx.pub }), 500, 'PARSE_ERROR');
    });

    test('each 200 and 304 is a config sync: 429 with an integer-second Retry-After past the quota', async (t) => {
      const test = await buildTestApp(t, {
        dialect,
        config: {
          quotas: { free: { configSyncs: 3, apps: 10, flags: 500 }, pro: { configSyncs: 3, apps: 10, flags: 500 } },
        },
      });
      const fx = await flagsFixture(test, []);
      const first = await bulk(test.app, { context: {} }, { token: fx.pub });
      assert.equal(first.headers['x-sync-quota-limit'], '3');
      assert.equal(first.headers['x-sync-quota-remaining'], '2');
      assert.equal(
        (
          await bulk(
            test.app,
            { context: {} },
            { token: fx.pub, headers: { 'if-none-match': String(first.headers.etag) } },
          )
        ).statusCode,
        304,
      );
      assert.equal((await bulk(test.app, { context: {} }, { token: fx.sdk })).statusCode, 200);
      const limited = await bulk(test.app, { context: {} }, { token: fx.pub });
      expectOfrepError(limited, 429, 'MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED');
      assert.match(String(limited.headers['retry-after']), /^[1-9]\d*$/);
      assert.equal(
        (
          await test.app.inject({
            method: 'POST',
            url: `${OFREP}/evaluate/flags/x`,
            headers: { 'x-api-key': fx.sdk },
            payload: { context: {} },
          })
        ).statusCode,
        404,
        'single-flag evaluations are not syncs',
      );
    });

    test('CORS: preflights allow the OFREP headers from any origin; answers expose ETag and Retry-After', async () => {
      const test = shared();
      const fx = await flagsFixture(test, []);
      const preflight = await test.app.inject({
        method: 'OPTIONS',
        url: `${OFREP}/evaluate/flags`,
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,authorization,x-api-key,if-none-match',
        },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], '*');
      const allowed = String(preflight.headers['access-control-allow-headers']).toLowerCase();
      for (const header of ['content-type', 'authorization', 'x-api-key', 'if-none-match'])
        assert.ok(allowed.includes(header), header);
      const res = await bulk(test.app, { context: {} }, { token: fx.pub, headers: { origin: 'https://shop.example' } });
      assert.equal(res.headers['access-control-allow-origin'], '*');
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
      for (const header of ['etag', 'retry-after']) assert.ok(exposed.includes(header), header);
      const single = await test.app.inject({
        method: 'OPTIONS',
        url: `${OFREP}/evaluate/flags/a`,
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(single.statusCode, 204);
    });
  });
}

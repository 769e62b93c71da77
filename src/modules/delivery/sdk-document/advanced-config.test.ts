import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inTransaction } from '../../../db/transaction.js';
import { createChangeNotifier } from '../../../db/notifications.js';
import { dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import { bearer, createApp, createKey, expectError, signUp } from '../../../../test/helpers/fixtures.js';
import { createConfigStateStore } from '../../core/config/index.js';
import { advancedClient } from './advanced.test-client.js';

const DOCUMENT_FIELDS = [
  'appId',
  'audience',
  'delivery',
  'env',
  'experiments',
  'flags',
  'privacy',
  'schemaVersion',
  'version',
];
const CORE_FLAG_FIELDS = [
  'clientVisible',
  'dependencies',
  'enabled',
  'metadata',
  'offValue',
  'overrides',
  'rollout',
  'rules',
  'type',
  'value',
  'variants',
];

const checkout = {
  key: 'checkout',
  type: 'bool',
  value: false,
  clientEnabled: true,
  metadata: { owner: 'payments' },
  rules: [
    { id: 'beta', conditions: [{ attribute: 'plan', operator: 'in', values: ['beta'] }], serve: { value: true } },
  ],
  overrides: { 'user-1': true },
  rollout: { percentage: 25, value: true },
};

for (const dialect of dialects) {
  describe(`GET /api/v1/advanced-config on ${dialect}`, () => {
    // Each test makes its own user, app and flags, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('sdk_ keys get the whole server document of their environment, with ETag and quota headers', async () => {
      const { app } = shared();
      const c = await advancedClient(app);
      await c.put(
        checkout,
        { key: 'kill', type: 'bool', value: false },
        { key: 'banner', type: 'string', value: 'hi', dependencies: [{ flag: 'kill', value: false }] },
      );

      const res = await c.get(c.fx.sdk, { query: null });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.headers['cache-control'], 'private, no-cache');
      assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]+"$/);
      assert.equal(res.headers['x-sync-quota-limit'], '1000');
      assert.equal(res.headers['x-sync-quota-remaining'], '999');
      // The change stream's address, with a token of this key (decision 0044); the same on a 304.
      assert.match(String(res.headers['x-ensign-event-stream']), /^\/api\/ofrep\/v1\/events\?token=[A-Za-z0-9_.%-]+$/);
      const notModified = await c.get(c.fx.sdk, {
        query: null,
        headers: { 'if-none-match': String(res.headers.etag) },
      });
      assert.equal(notModified.statusCode, 304);
      assert.equal(notModified.headers['x-ensign-event-stream'], res.headers['x-ensign-event-stream']);
      const doc = res.json();
      assert.deepEqual(Object.keys(doc).sort(), DOCUMENT_FIELDS);
      assert.deepEqual(doc.experiments, [], 'server documents carry the running experiments');
      assert.equal(doc.schemaVersion, 'core/v1');
      assert.deepEqual([doc.appId, doc.env, doc.version, doc.audience], [c.fx.target.appId, 'prod', 3, 'server']);
      assert.equal(doc.delivery.etag, res.headers.etag);
      assert.equal(doc.delivery.ttlSeconds, 60);
      assert.equal(doc.delivery.pollIntervalSeconds, 60);
      assert.match(doc.delivery.generatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(doc.privacy, { privateAttributes: [], clientMetadataKeys: [] });
      assert.deepEqual(Object.keys(doc.flags), ['banner', 'checkout', 'kill']);
      for (const flag of Object.values(doc.flags))
        assert.deepEqual(Object.keys(flag as object).sort(), CORE_FLAG_FIELDS);
      const { key: _key, clientEnabled: _visible, ...fields } = checkout;
      assert.deepEqual(doc.flags.checkout, {
        ...fields,
        clientVisible: true,
        variants: null,
        dependencies: [],
        enabled: true,
        offValue: false,
      });
      assert.deepEqual(doc.flags.banner.dependencies, [{ flag: 'kill', value: false }]);
      assert.equal(doc.flags.kill.clientVisible, false);
    });

    test('cli_ and admin_ name the environment (aliases too), get the server document, and are never counted', async () => {
      const { app } = shared();
      const c = await advancedClient(app);
      await c.put(checkout);
      const first = await c.get(c.fx.sdk, { query: null });
      const served = first.json();
      for (const [token, env] of [
        [c.fx.user.token, 'prod'],
        [c.fx.admin, 'production'],
      ] as const) {
        const res = await c.get(token, { query: { appId: c.fx.target.appId, env } });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-sync-quota-limit'], undefined);
        assert.equal(res.headers['x-ensign-event-stream'], undefined, 'management reads are not followed');
        const doc = res.json();
        assert.equal(doc.env, 'prod');
        assert.equal(doc.audience, 'server');
        assert.deepEqual(doc.flags, served.flags);
        // Tags are per credential: each reader has its own, and the body carries it.
        assert.notEqual(res.headers.etag, first.headers.etag);
        assert.equal(doc.delivery.etag, res.headers.etag);
        const again = await c.get(token, {
          query: { appId: c.fx.target.appId, env },
          headers: { 'if-none-match': String(res.headers.etag) },
        });
        assert.equal(again.statusCode, 304);
      }
      // Only the sdk_ read counted.
      assert.equal((await c.get(c.fx.sdk)).headers['x-sync-quota-remaining'], '998');
    });

    test('ETag and 304: bound to the credential and the version; 304 has no body and counts a sync', async () => {
      const { app } = shared();
      const c = await advancedClient(app);
      await c.put(checkout);
      const sdk2 = await createKey(app, c.fx.user.token, { appId: c.fx.target.appId, env: 'prod', type: 'sdk' });
      const first = await c.get(c.fx.sdk);
      const etag = String(first.headers.etag);

      const hit = await c.get(c.fx.sdk, { headers: { 'if-none-match': etag } });
      assert.equal(hit.statusCode, 304);
      assert.equal(hit.body, '');
      assert.equal(hit.headers.etag, etag);
      assert.equal(hit.headers['x-sync-quota-remaining'], '998');
      assert.equal((await c.get(c.fx.sdk, { headers: { 'if-none-match': `"other", W/${etag}` } })).statusCode, 304);

      // Another key of the same environment, the legacy route and the client projection have other tags.
      const other = await c.get(sdk2.token, { headers: { 'if-none-match': etag } });
      assert.equal(other.statusCode, 200);
      assert.notEqual(other.headers.etag, etag);
      const legacy = await app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer(c.fx.sdk) });
      assert.notEqual(legacy.headers.etag, etag);
      assert.equal(
        (
          await app.inject({
            method: 'GET',
            url: '/api/v1/config',
            headers: { ...bearer(c.fx.sdk), 'if-none-match': etag },
          })
        ).statusCode,
        200,
      );

      // A new version is a new tag; the old one no longer matches.
      await c.put({ ...checkout, value: true });
      const changed = await c.until(c.fx.sdk, 2, { 'if-none-match': etag });
      assert.equal(changed.json().version, 2);
      assert.notEqual(changed.headers.etag, etag);
      assert.equal(changed.json().flags.checkout.value, true);
    });

    test('credentials and scope: 400 without appId/env for management, 401, 403 and 404', async () => {
      const { app } = shared();
      const c = await advancedClient(app);
      const { appId } = c.fx.target;

      for (const query of [null, { appId }, { env: 'prod' }] as (Record<string, string> | null)[]) {
        const error = expectError(await c.get(c.fx.admin, { query }), 400, 'validation_error');
        assert.ok(
          error.details?.some((d) => /^querystring\.(appId|env)$/.test(d.path)),
          JSON.stringify(error.details),
        );
      }
      expectError(await c.get(c.fx.admin, { query: { appId, env: 'x'.repeat(129) } }), 400, 'validation_error');

      expectError(await app.inject({ method: 'GET', url: '/api/v1/advanced-config' }), 401, 'unauthorized');
      expectError(await c.get('sdk_not-a-real-key'), 401, 'unauthorized');
      expectError(await c.get('bogus'), 401, 'unauthorized');
      const revoked = await createKey(app, c.fx.user.token, { appId, env: 'prod', type: 'sdk' });
      assert.equal(
        (
          await app.inject({
            method: 'PATCH',
            url: '/api/v1/keys',
            headers: bearer(c.fx.user.token),
            payload: { keyId: revoked.id, action: 'revoke' },
          })
        ).statusCode,
        200,
      );
      expectError(await c.get(revoked.token), 401, 'unauthorized');

      // Another user's app, another app's admin key, and an environment key naming another environment.
      const stranger = await signUp(app);
      const theirs = await createApp(app, stranger.token);
      expectError(await c.get(stranger.token, { query: { appId, env: 'prod' } }), 403, 'forbidden');
      expectError(await c.get(theirs.admin, { query: { appId, env: 'prod' } }), 403, 'forbidden');
      expectError(await c.get(c.fx.sdk, { query: { env: 'dev' } }), 403, 'forbidden');
      expectError(await c.get(c.fx.pub, { query: { appId: theirs.appId } }), 403, 'forbidden');
      assert.equal((await c.get(c.fx.sdk, { query: { appId, env: 'production' } })).statusCode, 200);

      expectError(await c.get(c.fx.user.token, { query: { appId: 'app_missing', env: 'prod' } }), 404, 'not_found');
      expectError(await c.get(c.fx.user.token, { query: { appId, env: 'qa' } }), 404, 'not_found');
    });

    test('a stored configuration that cannot be compiled is 500 config_invalid, details only for management, and no sync', async () => {
      const { app, database } = shared();
      const c = await advancedClient(app);
      await c.put(
        { key: 'base', type: 'bool', value: true },
        { key: 'child', type: 'bool', value: true, dependencies: [{ flag: 'base', value: true }] },
      );
      // Written around the validating write paths, as a corrupt or foreign write would be.
      const notifier = createChangeNotifier(database.handle, database.pgSchema);
      try {
        const store = createConfigStateStore(database.handle.db, notifier);
        await inTransaction(database.handle.db, async (trx) => {
          const locked = await store.lock(trx, c.fx.target);
          const state = structuredClone(locked.state);
          delete state.flags.base;
          await store.commit(trx, c.fx.target, locked, {
            state,
            changeId: null,
            operation: 'test.corrupt',
            authority: { type: 'system' },
          });
        });
      } finally {
        await notifier.close();
      }
      // Management reads see the new version at once; environment keys within a second.
      const managed = expectError(await c.manage(), 500, 'config_invalid');
      assert.match(managed.message, /"base"/);
      const started = Date.now();
      while ((await c.get(c.fx.sdk)).statusCode !== 500)
        assert.ok(Date.now() - started < 3000, 'the new version is served within 3 s');

      const legacy = () => app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer(c.fx.sdk) });
      const remaining = Number((await legacy()).headers['x-sync-quota-remaining']);
      for (const token of [c.fx.sdk, c.fx.pub]) {
        const error = expectError(await c.get(token), 500, 'config_invalid');
        assert.doesNotMatch(error.message, /base|child/, 'environment keys are not told which flags');
      }
      assert.equal(Number((await legacy()).headers['x-sync-quota-remaining']), remaining - 1, 'a 500 is not a sync');
    });
  });
}

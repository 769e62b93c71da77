import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import {
  assertContainsNone,
  call,
  createKey,
  expectError,
  expectValidation,
  keysDeep,
  sha256,
  uniqueKey,
  userWithApp,
} from '../../../../test/helpers/fixtures.js';

const RECORD_FIELDS = ['appId', 'createdAt', 'env', 'id', 'lastUsedAt', 'prefix', 'revokedAt', 'status', 'type'];

const listKeys = async (app: FastifyInstance, token: string, query: string) => {
  const res = await call(app, 'GET', `/api/v1/keys?${query}`, { token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().keys as any[];
};

for (const dialect of dialects) {
  describe(`keys on ${dialect}`, () => {
    // Each test makes its own user and app, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('the list is newest first and never holds a token or its hash', async () => {
      const { app, database } = shared();
      const s = await userWithApp(app);
      const pub = await createKey(app, s.user.token, { appId: s.appId, env: 'prod', type: 'pub', name: 'web' });
      const sdk = await createKey(app, s.admin, { appId: s.appId, env: 'staging', type: 'sdk' });
      const keys = await listKeys(app, s.user.token, `appId=${s.appId}`);
      const created = [...s.body.keys, s.body.adminKey, pub, sdk];
      assert.deepEqual(
        keys.map((k) => k.id),
        created.map((k) => k.id).reverse(),
      );
      for (let i = 1; i < keys.length; i++) assert.ok(keys[i - 1].createdAt >= keys[i].createdAt);
      for (const k of keys) {
        assert.deepEqual(
          Object.keys(k)
            .filter((f) => f !== 'name')
            .sort(),
          RECORD_FIELDS,
        );
        assert.equal(k.status, 'active');
        assert.equal(k.revokedAt, null);
        assert.equal(k.appId, s.appId);
      }
      assert.equal(keys.find((k) => k.id === pub.id).name, 'web');
      assert.ok(!keysDeep(keys).has('token'));
      const hashes = (await database.handle.db.selectFrom('api_keys').select('token_hash').execute()).map(
        (r) => r.token_hash,
      );
      assertContainsNone(JSON.stringify(keys), [...s.tokens, pub.token, sdk.token, ...hashes], 'the key list');
      assert.deepEqual(
        (await listKeys(app, s.admin, `appId=${s.appId}&env=prod`)).map((k) => k.id),
        [pub.id, s.body.keys[2].id],
      );
    });

    test('sdk, pub and admin keys are created by the owner or the admin key', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      for (const token of [s.user.token, s.admin]) {
        for (const payload of [
          { appId: s.appId, env: 'dev', type: 'sdk' },
          { appId: s.appId, env: 'staging', type: 'pub', name: 'mobile' },
          { appId: s.appId, type: 'admin' },
        ]) {
          const res = await call(app, 'POST', '/api/v1/keys', { token, idem: true, payload });
          assert.equal(res.statusCode, 201, res.body);
          const key = res.json().key;
          assert.match(key.id, /^key_/);
          assert.equal(key.type, payload.type);
          assert.equal(key.env, payload.env ?? null);
          assert.equal(key.status, 'active');
          assert.match(key.token, new RegExp(`^${payload.type}_[A-Za-z0-9_-]{43}$`));
          assert.equal(key.prefix, key.token.slice(0, 12));
          assert.equal(key.name, payload.name);
          // The new key works at once where its type is accepted.
          const use = await call(app, 'GET', `/api/v1/keys?appId=${s.appId}`, { token: key.token });
          assert.equal(use.statusCode, payload.type === 'admin' ? 200 : 401);
        }
      }
      assert.equal((await listKeys(app, s.user.token, `appId=${s.appId}`)).length, 4 + 6);
    });

    test('the older env slugs are accepted on every env input and come back canonical', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      const dev = await createKey(app, s.user.token, { appId: s.appId, env: 'development', type: 'pub' });
      const prod = await createKey(app, s.user.token, { appId: s.appId, env: 'production', type: 'sdk' });
      assert.equal(dev.env, 'dev');
      assert.equal(prod.env, 'prod');
      const listed = await listKeys(app, s.user.token, `appId=${s.appId}&env=production`);
      assert.deepEqual(
        listed.map((k) => k.id),
        [prod.id, s.body.keys[2].id],
      );
      assert.ok(listed.every((k) => k.env === 'prod'));
      assert.deepEqual(
        (await listKeys(app, s.user.token, `appId=${s.appId}&env=development`)).map((k) => [k.id, k.env]),
        [
          [dev.id, 'dev'],
          [s.body.keys[0].id, 'dev'],
        ],
      );
      expectError(
        await call(app, 'GET', `/api/v1/keys?appId=${s.appId}&env=qa`, { token: s.user.token }),
        404,
        'not_found',
      );
    });

    test('invalid create requests are 400 (env rules included) or 404, and create nothing', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      const post = (payload: unknown) =>
        call(app, 'POST', '/api/v1/keys', { token: s.user.token, idem: true, payload });
      expectValidation(await post({ appId: s.appId, type: 'sdk' }), '/env');
      expectValidation(await post({ appId: s.appId, type: 'pub' }), '/env');
      expectValidation(await post({ appId: s.appId, env: 'dev', type: 'admin' }), '/env');
      expectValidation(await post({ appId: s.appId, env: 'dev', type: 'root' }), '/type');
      expectValidation(await post({ appId: s.appId, env: 'dev' }), '/type');
      expectValidation(await post({ env: 'dev', type: 'sdk' }), '/appId');
      expectValidation(await post({ appId: '', env: 'dev', type: 'sdk' }), '/appId');
      expectValidation(await post({ appId: s.appId, env: 'x'.repeat(129), type: 'sdk' }), '/env');
      expectValidation(await post({ appId: s.appId, env: 'dev', type: 'sdk', name: 'n'.repeat(101) }), '/name');
      expectValidation(await post({ appId: s.appId, env: 'dev', type: 'sdk', scopes: ['all'] }), '/scopes');
      expectValidation(await post({ appId: s.appId, env: 7, type: 'sdk' }), '/env');
      expectError(await post({ appId: s.appId, env: 'qa', type: 'sdk' }), 404, 'not_found');
      expectError(await post({ appId: 'app_nope', type: 'admin' }), 404, 'not_found');
      expectError(
        await call(app, 'POST', '/api/v1/keys', {
          token: s.user.token,
          payload: { appId: s.appId, env: 'dev', type: 'sdk' },
        }),
        400,
        'idempotency_key_required',
      );
      for (const key of ['short', 'k'.repeat(129), 'has space inside']) {
        expectValidation(
          await call(app, 'POST', '/api/v1/keys', {
            token: s.user.token,
            idem: key,
            payload: { appId: s.appId, env: 'dev', type: 'sdk' },
          }),
        );
      }
      assert.equal((await listKeys(app, s.user.token, `appId=${s.appId}`)).length, 4);
    });

    test('an identical retry replays the key with its token; another body with the key is 409', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      const idem = uniqueKey();
      const send = (payload: unknown, token = s.user.token) =>
        call(app, 'POST', '/api/v1/keys', { token, idem, payload });
      const first = await send({ appId: s.appId, env: 'dev', type: 'pub' });
      const replay = await send({ type: 'pub', env: 'dev', appId: s.appId });
      assert.equal(first.statusCode, 201);
      assert.equal(replay.statusCode, 201);
      assert.equal(replay.body, first.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(first.headers['idempotent-replayed'], undefined);
      expectError(await send({ appId: s.appId, env: 'prod', type: 'pub' }), 409, 'idempotency_conflict');
      // Records are scoped to the principal: the admin key may use the same idempotency key.
      assert.equal((await send({ appId: s.appId, env: 'prod', type: 'pub' }, s.admin)).statusCode, 201);
      assert.equal((await listKeys(app, s.user.token, `appId=${s.appId}`)).length, 6);
    });

    test('concurrent duplicates with one idempotency key create one key', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      const idem = uniqueKey();
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          call(app, 'POST', '/api/v1/keys', {
            token: s.user.token,
            idem,
            payload: { appId: s.appId, env: 'dev', type: 'sdk' },
          }),
        ),
      );
      for (const r of responses) assert.equal(r.statusCode, 201, r.body);
      assert.equal(new Set(responses.map((r) => r.json().key.id)).size, 1);
      assert.equal((await listKeys(app, s.user.token, `appId=${s.appId}`)).length, 5);
    });
  });

  describe(`key revocation on ${dialect}`, () => {
    // Each test makes its own user and app, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('PATCH revokes; revoking again answers the first revokedAt; the key is refused at once', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      const admin2 = await createKey(app, s.user.token, { appId: s.appId, type: 'admin' });
      const revoke = () =>
        call(app, 'PATCH', '/api/v1/keys', { token: s.user.token, payload: { keyId: admin2.id, action: 'revoke' } });
      const first = await revoke();
      assert.equal(first.statusCode, 200, first.body);
      const key = first.json().key;
      assert.deepEqual(Object.keys(key).sort(), RECORD_FIELDS);
      assert.equal(key.status, 'revoked');
      assert.match(key.revokedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(!('token' in key));
      await new Promise((r) => setTimeout(r, 5));
      const second = await revoke();
      assert.equal(second.statusCode, 200);
      assert.equal(second.json().key.revokedAt, key.revokedAt);
      expectError(
        await call(app, 'GET', `/api/v1/keys?appId=${s.appId}`, { token: admin2.token }),
        401,
        'unauthorized',
      );
      const listed = (await listKeys(app, s.user.token, `appId=${s.appId}`)).find((k) => k.id === admin2.id);
      assert.deepEqual(listed, key);
    });

    test('concurrent revocations answer one revokedAt and journal one key.revoke', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      const keyId = s.body.keys[1].id;
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          i % 2
            ? call(app, 'DELETE', `/api/v1/keys?keyId=${keyId}`, { token: s.admin })
            : call(app, 'PATCH', '/api/v1/keys', { token: s.user.token, payload: { keyId, action: 'revoke' } }),
        ),
      );
      for (const r of responses) assert.equal(r.statusCode, 200, r.body);
      assert.equal(new Set(responses.map((r) => r.json().key.revokedAt)).size, 1);
      const journal = await call(app, 'GET', `/api/v1/changes?appId=${s.appId}&operation=key.revoke`, {
        token: s.user.token,
      });
      assert.deepEqual(
        journal.json().changes.map((c: any) => c.resourceId),
        [keyId],
      );
    });

    test('the older DELETE ?keyId= form revokes the same way', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      const pub = await createKey(app, s.admin, { appId: s.appId, env: 'dev', type: 'pub' });
      const first = await call(app, 'DELETE', `/api/v1/keys?keyId=${pub.id}`, { token: s.admin });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().key.status, 'revoked');
      const viaPatch = await call(app, 'PATCH', '/api/v1/keys', {
        token: s.admin,
        payload: { keyId: pub.id, action: 'revoke' },
      });
      assert.equal(viaPatch.json().key.revokedAt, first.json().key.revokedAt);
      const again = await call(app, 'DELETE', `/api/v1/keys?keyId=${pub.id}`, { token: s.user.token });
      assert.equal(again.json().key.revokedAt, first.json().key.revokedAt);
    });

    test('invalid revocations are 400 or 404 and revoke nothing', async () => {
      const { app } = shared();
      const s = await userWithApp(app);
      const keyId = s.body.keys[0].id;
      const patch = (payload: unknown) => call(app, 'PATCH', '/api/v1/keys', { token: s.user.token, payload });
      expectValidation(await patch({ keyId, action: 'delete' }), '/action');
      expectValidation(await patch({ keyId }), '/action');
      expectValidation(await patch({ action: 'revoke' }), '/keyId');
      expectValidation(await patch({ keyId, action: 'revoke', reason: 'x' }), '/reason');
      expectValidation(await patch({ keyId: '', action: 'revoke' }), '/keyId');
      expectValidation(await patch({ keyId: 'k'.repeat(129), action: 'revoke' }), '/keyId');
      expectValidation(await call(app, 'DELETE', '/api/v1/keys', { token: s.user.token }), 'querystring.keyId');
      expectError(await patch({ keyId: 'key_unknown', action: 'revoke' }), 404, 'not_found');
      expectError(
        await call(app, 'DELETE', '/api/v1/keys?keyId=key_unknown', { token: s.user.token }),
        404,
        'not_found',
      );
      assert.ok((await listKeys(app, s.user.token, `appId=${s.appId}`)).every((k) => k.status === 'active'));
    });

    test("another tenant's key ids are 404 like unknown ones: the answer neither confirms them nor names their app", async () => {
      const { app } = shared();
      const owner = await userWithApp(app);
      const other = await userWithApp(app);
      const keyId = owner.body.keys[0].id;
      const unknown = expectError(
        await call(app, 'PATCH', '/api/v1/keys', {
          token: other.user.token,
          payload: { keyId: 'key_unknown', action: 'revoke' },
        }),
        404,
        'not_found',
      );
      for (const token of [other.user.token, other.admin]) {
        const attempts = [
          await call(app, 'PATCH', '/api/v1/keys', { token, payload: { keyId, action: 'revoke' } }),
          await call(app, 'DELETE', `/api/v1/keys?keyId=${keyId}`, { token }),
        ];
        for (const res of attempts) {
          const error = expectError(res, 404, 'not_found');
          assert.equal(error.message, unknown.message.replace('key_unknown', keyId));
          assert.ok(!res.body.includes(owner.appId), 'the owning app is not named');
        }
      }
      assert.ok((await listKeys(app, owner.user.token, `appId=${owner.appId}`)).every((k) => k.status === 'active'));
    });

    test('lastUsedAt is recorded in batches, at the latest when the server closes', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect });
      const s = await userWithApp(app);
      const before = Date.now();
      assert.equal((await call(app, 'GET', `/api/v1/keys?appId=${s.appId}`, { token: s.admin })).statusCode, 200);
      await app.close();
      const row = await database.handle.db
        .selectFrom('api_keys')
        .select(['last_used_at', 'token_hash'])
        .where('id', '=', s.body.adminKey.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.last_used_at && Date.parse(row.last_used_at) >= before - 5, `last_used_at ${row.last_used_at}`);
      assert.equal(row.token_hash, sha256(s.admin));
      const unused = await database.handle.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('id', '=', s.body.keys[0].id)
        .executeTakeFirstOrThrow();
      assert.equal(unused.last_used_at, null);
    });
  });
}

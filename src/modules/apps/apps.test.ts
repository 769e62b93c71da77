import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../test/helpers/test-app.js';
import { bearer, createApp, signUp, uniqueKey } from '../../../test/helpers/fixtures.js';

for (const dialect of dialects) {
  describe(`apps on ${dialect}`, () => {
    test('create returns environments, one sdk key per environment and an admin key', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const created = await createApp(app, user.token, 'shop');
      assert.deepEqual(created.body.environments.map((e: any) => e.slug), ['dev', 'staging', 'prod']);
      assert.deepEqual(created.body.environments.map((e: any) => e.name), ['Development', 'Staging', 'Production']);
      assert.equal(created.body.keys.length, 3);
      for (const k of created.body.keys) {
        assert.equal(k.type, 'sdk');
        assert.match(k.token, /^sdk_[A-Za-z0-9_-]{43}$/);
        assert.equal(k.prefix, k.token.slice(0, 12));
      }
      assert.match(created.body.adminKey.token, /^admin_/);
      assert.equal(created.body.adminKey.env, null);
    });

    test('an identical retry replays the first response, secrets included; another body is 409', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const key = uniqueKey();
      const send = (payload: object) => app.inject({ method: 'POST', url: '/api/v1/apps', headers: { ...bearer(user.token), 'idempotency-key': key }, payload });
      const first = await send({ name: 'Shop', slug: 'shop' });
      const second = await send({ slug: 'shop', name: 'Shop' });
      assert.equal(first.statusCode, 201);
      assert.equal(second.statusCode, 201);
      assert.equal(second.body, first.body);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      const third = await send({ name: 'Shop 2', slug: 'shop' });
      assert.equal(third.statusCode, 409);
      assert.equal(third.json().error.code, 'idempotency_conflict');
      const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
      assert.equal(list.json().apps.length, 1);
    });

    test('concurrent duplicates with one key produce one app', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const key = uniqueKey();
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => app.inject({ method: 'POST', url: '/api/v1/apps', headers: { ...bearer(user.token), 'idempotency-key': key }, payload: { name: 'Shop', slug: 'shop' } })),
      );
      for (const r of responses) assert.equal(r.statusCode, 201, r.body);
      assert.equal(new Set(responses.map((r) => r.json().app.id)).size, 1);
      const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
      assert.equal(list.json().apps.length, 1);
    });
  });
}

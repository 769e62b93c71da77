import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import {
  assertContainsNone,
  bearer,
  call,
  createApp,
  expectError,
  expectValidation,
  keysDeep,
  signUp,
  uniqueKey,
  userWithApp,
} from '../../../../test/helpers/fixtures.js';

for (const dialect of dialects) {
  describe(`apps on ${dialect}`, () => {
    // Each test makes its own users and apps, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('create returns environments, one sdk key per environment and an admin key', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const created = await createApp(app, user.token, 'shop');
      assert.deepEqual(
        created.body.environments.map((e: any) => e.slug),
        ['dev', 'staging', 'prod'],
      );
      assert.deepEqual(
        created.body.environments.map((e: any) => e.name),
        ['Development', 'Staging', 'Production'],
      );
      assert.equal(created.body.keys.length, 3);
      for (const k of created.body.keys) {
        assert.equal(k.type, 'sdk');
        assert.match(k.token, /^sdk_[A-Za-z0-9_-]{43}$/);
        assert.equal(k.prefix, k.token.slice(0, 12));
      }
      assert.match(created.body.adminKey.token, /^admin_/);
      assert.equal(created.body.adminKey.env, null);
    });

    test('an identical retry replays the first response, secrets included; another body is 409', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const key = uniqueKey();
      const send = (payload: object) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/apps',
          headers: { ...bearer(user.token), 'idempotency-key': key },
          payload,
        });
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

    test('concurrent duplicates with one key produce one app', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const key = uniqueKey();
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          app.inject({
            method: 'POST',
            url: '/api/v1/apps',
            headers: { ...bearer(user.token), 'idempotency-key': key },
            payload: { name: 'Shop', slug: 'shop' },
          }),
        ),
      );
      for (const r of responses) assert.equal(r.statusCode, 201, r.body);
      assert.equal(new Set(responses.map((r) => r.json().app.id)).size, 1);
      const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
      assert.equal(list.json().apps.length, 1);
    });

    test('name and slug are validated at their length edges and pattern; nothing is created', async (t) => {
      const { app } = await buildTestApp(t, {
        dialect,
        config: {
          quotas: { free: { configSyncs: 1, apps: 100, flags: 1 }, pro: { configSyncs: 1, apps: 100, flags: 1 } },
        },
      });
      const user = await signUp(app);
      const post = (payload: unknown) => call(app, 'POST', '/api/v1/apps', { token: user.token, idem: true, payload });
      const bad: [unknown, string][] = [
        [{ name: '', slug: 'ok-slug' }, '/name'],
        [{ name: 'x'.repeat(101), slug: 'ok-slug' }, '/name'],
        [{ name: 42, slug: 'ok-slug' }, '/name'],
        [{ slug: 'ok-slug' }, '/name'],
        [{ name: 'Shop', slug: 'a' }, '/slug'],
        [{ name: 'Shop', slug: `a${'b'.repeat(40)}` }, '/slug'],
        ...['Shop', '1shop', 'shop-', '-shop', 'sh--op', 'sh_op', 'sh op', 'shöp'].map((slug): [unknown, string] => [
          { name: 'Shop', slug },
          '/slug',
        ]),
        [{ name: 'Shop' }, '/slug'],
        [{ name: 'Shop', slug: 'shop', owner: 'me' }, '/owner'],
        [{ name: 'Shop', slug: ['shop'] }, '/slug'],
      ];
      for (const [payload, path] of bad) expectValidation(await post(payload), path);
      expectValidation(
        await call(app, 'POST', '/api/v1/apps', {
          token: user.token,
          idem: true,
          payload: '{"name":"Shop",',
          headers: { 'content-type': 'application/json' },
        }),
      );
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: user.token })).json().apps.length, 0);
      for (const payload of [
        { name: 'x', slug: 'ab' },
        { name: 'y'.repeat(100), slug: `a${'b'.repeat(39)}` },
        { name: 'Multi', slug: 'a1-b2-c3' },
      ]) {
        const res = await post(payload);
        assert.equal(res.statusCode, 201, res.body);
        assert.deepEqual({ name: res.json().app.name, slug: res.json().app.slug }, payload);
      }
    });

    test('a missing idempotency key is 400 idempotency_key_required and creates nothing', async () => {
      const { app } = shared();
      const user = await signUp(app);
      expectError(
        await call(app, 'POST', '/api/v1/apps', { token: user.token, payload: { name: 'Shop', slug: 'shop' } }),
        400,
        'idempotency_key_required',
      );
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: user.token })).json().apps.length, 0);
    });

    test('a slug used twice by one user is 409 slug_conflict; another user may use it', async () => {
      const { app } = shared();
      const user = await signUp(app);
      await createApp(app, user.token, 'shop');
      expectError(
        await call(app, 'POST', '/api/v1/apps', {
          token: user.token,
          idem: true,
          payload: { name: 'Shop again', slug: 'shop' },
        }),
        409,
        'slug_conflict',
      );
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: user.token })).json().apps.length, 1);
      const other = await signUp(app);
      await createApp(app, other.token, 'shop');
    });

    test('the app quota of the plan answers 429 app_quota_exceeded; a pro user gets the pro quota', async (t) => {
      const { app, database } = await buildTestApp(t, {
        dialect,
        config: { quotas: { free: { configSyncs: 1, apps: 2, flags: 1 }, pro: { configSyncs: 1, apps: 3, flags: 1 } } },
      });
      const user = await signUp(app);
      await createApp(app, user.token);
      await createApp(app, user.token);
      const res = await call(app, 'POST', '/api/v1/apps', {
        token: user.token,
        idem: true,
        payload: { name: 'Third', slug: 'third' },
      });
      expectError(res, 429, 'app_quota_exceeded');
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: user.token })).json().apps.length, 2);
      await database.handle.db.updateTable('users').set({ plan: 'pro' }).where('id', '=', user.userId).execute();
      await createApp(app, user.token, 'third');
      expectError(
        await call(app, 'POST', '/api/v1/apps', {
          token: user.token,
          idem: true,
          payload: { name: 'Fourth', slug: 'fourth' },
        }),
        429,
        'app_quota_exceeded',
      );
    });

    test('concurrent creations cannot race past the app quota', async (t) => {
      const { app } = await buildTestApp(t, {
        dialect,
        config: { quotas: { free: { configSyncs: 1, apps: 2, flags: 1 }, pro: { configSyncs: 1, apps: 2, flags: 1 } } },
      });
      const user = await signUp(app);
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          call(app, 'POST', '/api/v1/apps', {
            token: user.token,
            idem: true,
            payload: { name: `App ${i}`, slug: `app-${i}` },
          }),
        ),
      );
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 201, 429, 429, 429, 429]);
      for (const r of responses.filter((x) => x.statusCode === 429)) expectError(r, 429, 'app_quota_exceeded');
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: user.token })).json().apps.length, 2);
    });

    test('the list holds strict app and environment records and no secret', async () => {
      const { app } = shared();
      const user = await signUp(app);
      const first = await createApp(app, user.token, 'first');
      const second = await createApp(app, user.token, 'second');
      await createApp(app, (await signUp(app)).token, 'not-mine');
      const res = await call(app, 'GET', '/api/v1/apps', { token: user.token });
      assert.equal(res.statusCode, 200);
      const apps = res.json().apps;
      assert.deepEqual(
        apps.map((a: any) => a.slug),
        ['first', 'second'],
      );
      for (const [i, a] of apps.entries()) {
        const created = [first, second][i]!.body;
        assert.deepEqual(Object.keys(a).sort(), ['createdAt', 'environments', 'id', 'name', 'role', 'slug']);
        assert.deepEqual({ ...a, environments: undefined }, { ...created.app, role: 'owner', environments: undefined });
        assert.deepEqual(
          a.environments,
          created.environments.map((e: any) => ({
            id: e.id,
            slug: e.slug,
            name: e.name,
            policy: { requiredApprovals: 0 },
          })),
        );
      }
      const keys = keysDeep(res.json());
      for (const k of ['token', 'tokenHash', 'token_hash', 'hash', 'secret']) assert.ok(!keys.has(k), `no ${k} field`);
      assertContainsNone(res.body, [...first.tokens, ...second.tokens], 'the app list');
    });

    test('GET /api/v1/envs lists the environments for the owner and the app admin key', async () => {
      const { app } = shared();
      const { user, appId, admin, body } = await userWithApp(app);
      for (const token of [user.token, admin]) {
        const res = await call(app, 'GET', `/api/v1/envs?appId=${appId}`, { token });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { environments: body.environments });
        for (const e of res.json().environments)
          assert.deepEqual(Object.keys(e).sort(), ['appId', 'createdAt', 'id', 'name', 'policy', 'slug']);
      }
      expectValidation(await call(app, 'GET', '/api/v1/envs', { token: user.token }), 'querystring.appId');
      expectValidation(await call(app, 'GET', '/api/v1/envs?appId=', { token: user.token }));
      expectValidation(await call(app, 'GET', `/api/v1/envs?appId=${'a'.repeat(129)}`, { token: user.token }));
      expectError(
        await call(app, 'GET', `/api/v1/envs?appId=${'a'.repeat(128)}`, { token: user.token }),
        404,
        'not_found',
      );
    });
  });
}

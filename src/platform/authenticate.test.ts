// The seed's credential rules, enforced in one place: which token type reaches which route, what a
// credential of another user or app gets, and what revoked, expired or malformed credentials get.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { dialects, suiteTestApp } from '../../test/helpers/test-app.js';
import { call, createKey, expectError, insertCliToken, userWithApp } from '../../test/helpers/fixtures.js';

type Route = { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: unknown; idem?: true };

/** Every management route of an app, with a request that would succeed for its owner. */
function managementRoutes(appId: string, keyId: string): Route[] {
  return [
    { method: 'GET', url: `/api/v1/envs?appId=${appId}` },
    { method: 'GET', url: `/api/v1/keys?appId=${appId}` },
    { method: 'POST', url: '/api/v1/keys', payload: { appId, env: 'dev', type: 'pub' }, idem: true },
    { method: 'PATCH', url: '/api/v1/keys', payload: { keyId, action: 'revoke' } },
    { method: 'DELETE', url: `/api/v1/keys?keyId=${keyId}` },
    { method: 'GET', url: `/api/v1/changes?appId=${appId}` },
  ];
}

const appRoutes: Route[] = [
  { method: 'GET', url: '/api/v1/apps' },
  { method: 'POST', url: '/api/v1/apps', payload: { name: 'Other', slug: 'other' }, idem: true },
];

async function expectEach(
  app: FastifyInstance,
  routes: Route[],
  token: string | undefined,
  status: number,
  code: string,
) {
  for (const r of routes) {
    const res = await call(app, r.method, r.url, { token, payload: r.payload, idem: r.idem });
    expectError(res, status, code);
    if (status === 401) assert.equal(res.headers['www-authenticate'], 'Bearer', `${r.method} ${r.url}`);
  }
}

async function setup(app: FastifyInstance) {
  const owner = await userWithApp(app);
  const pub = await createKey(app, owner.user.token, { appId: owner.appId, env: 'prod', type: 'pub' });
  const victim = await createKey(app, owner.user.token, { appId: owner.appId, env: 'dev', type: 'sdk' });
  return { ...owner, pub: pub.token, victimKeyId: victim.id };
}

async function keyCount(app: FastifyInstance, token: string, appId: string) {
  return (await call(app, 'GET', `/api/v1/keys?appId=${appId}`, { token })).json().keys.length as number;
}

for (const dialect of dialects) {
  describe(`credential rules on ${dialect}`, () => {
    // Each test makes its own users and apps, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('sdk_, pub_ and admin_ cannot list or create apps (401)', async () => {
      const { app } = shared();
      const s = await setup(app);
      for (const token of [s.sdk.dev!, s.pub, s.admin]) await expectEach(app, appRoutes, token, 401, 'unauthorized');
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: s.user.token })).json().apps.length, 1);
    });

    test('a scoped cli_ token may list apps but not create them (401)', async () => {
      const { app, database } = shared();
      const s = await setup(app);
      const scoped = await insertCliToken(database.handle.db, s.user.userId, { scope: ['propose'] });
      await expectEach(app, [appRoutes[1]!], scoped, 401, 'unauthorized');
      const list = await call(app, 'GET', '/api/v1/apps', { token: scoped });
      assert.equal(list.statusCode, 200, list.body);
      assert.equal(list.json().apps.length, 1);
    });

    test('sdk_ and pub_ cannot reach keys, environments or the journal (401)', async () => {
      const { app } = shared();
      const s = await setup(app);
      for (const token of [s.sdk.dev!, s.pub])
        await expectEach(app, managementRoutes(s.appId, s.victimKeyId), token, 401, 'unauthorized');
      assert.equal(await keyCount(app, s.user.token, s.appId), 6);
    });

    test("another app's admin_ key and another user's cli_ token are 403 on the app, 404 on its key ids", async () => {
      const { app } = shared();
      const s = await setup(app);
      const stranger = await userWithApp(app);
      // A key id names no app in the request: that it exists is not told (modules/keys).
      const byKeyId = (r: Route) =>
        r.url.includes('keyId=') || (r.payload as { keyId?: string } | undefined)?.keyId !== undefined;
      const routes = managementRoutes(s.appId, s.victimKeyId);
      for (const token of [stranger.admin, stranger.user.token]) {
        await expectEach(
          app,
          routes.filter((r) => !byKeyId(r)),
          token,
          403,
          'forbidden',
        );
        await expectEach(app, routes.filter(byKeyId), token, 404, 'not_found');
      }
      assert.equal(await keyCount(app, s.user.token, s.appId), 6);
      const keys = (await call(app, 'GET', `/api/v1/keys?appId=${s.appId}`, { token: s.user.token })).json().keys;
      assert.ok(
        keys.every((k: any) => k.status === 'active'),
        'nothing was revoked',
      );
    });

    test('an unknown app or key is 404 for any management credential', async () => {
      const { app } = shared();
      const s = await setup(app);
      for (const token of [s.user.token, s.admin])
        await expectEach(app, managementRoutes('app_unknown', 'key_unknown'), token, 404, 'not_found');
    });

    test('a revoked key is refused on every route from the next request on', async () => {
      const { app } = shared();
      const s = await setup(app);
      const extraAdmin = await createKey(app, s.user.token, { appId: s.appId, type: 'admin' });
      const routes = managementRoutes(s.appId, s.victimKeyId);
      assert.equal((await call(app, 'GET', routes[1]!.url, { token: extraAdmin.token })).statusCode, 200);
      const revoke = await call(app, 'PATCH', '/api/v1/keys', {
        token: extraAdmin.token,
        payload: { keyId: extraAdmin.id, action: 'revoke' },
      });
      assert.equal(revoke.statusCode, 200, revoke.body);
      await expectEach(app, [...routes, ...appRoutes], extraAdmin.token, 401, 'unauthorized');
      const sdkId = s.body.keys[0].id;
      await call(app, 'DELETE', `/api/v1/keys?keyId=${sdkId}`, { token: s.user.token });
      await expectEach(app, [...routes, ...appRoutes], s.sdk.dev!, 401, 'unauthorized');
      assert.equal(await keyCount(app, s.user.token, s.appId), 7);
    });

    test('a logged-out cli_ token is refused on every route', async () => {
      const { app } = shared();
      const s = await setup(app);
      assert.equal((await call(app, 'DELETE', '/api/v1/cli-token', { token: s.user.token })).statusCode, 204);
      await expectEach(
        app,
        [...managementRoutes(s.appId, s.victimKeyId), ...appRoutes],
        s.user.token,
        401,
        'unauthorized',
      );
    });

    test('missing and malformed Authorization headers are 401', async () => {
      const { app } = shared();
      const s = await setup(app);
      const routes = [...appRoutes, ...managementRoutes(s.appId, s.victimKeyId)];
      await expectEach(app, routes, undefined, 401, 'unauthorized');
      const malformed = [
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        'Bearer',
        'Bearer ',
        `Bearer ${s.user.token} extra`,
        s.user.token,
        'Bearer xyz_abcdef',
        'Bearer cli_',
        'Bearer cli_doesnotexist',
        `Bearer ${s.user.token}x`,
        `Token ${s.user.token}`,
      ];
      for (const authorization of malformed) {
        for (const r of routes) {
          const res = await app.inject({
            method: r.method,
            url: r.url,
            headers: { authorization, 'idempotency-key': 'idem-malformed-1' },
            ...(r.payload ? { payload: r.payload as object } : {}),
          });
          expectError(res, 401, 'unauthorized');
        }
      }
      // The scheme name is case-insensitive.
      assert.equal(
        (await app.inject({ method: 'GET', url: '/api/v1/apps', headers: { authorization: `bearer ${s.user.token}` } }))
          .statusCode,
        200,
      );
    });
  });
}

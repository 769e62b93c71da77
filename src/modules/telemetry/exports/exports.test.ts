import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import {
  call,
  expectError,
  expectValidation,
  signUp,
  uniqueKey,
  userWithApp,
} from '../../../../test/helpers/fixtures.js';
import { checkTarget, isPublicAddress, resolveDeliveryAddress, type ExportPolicy } from './export-policy.js';

const policy: ExportPolicy = {
  allowedHosts: ['hooks.example.com', 'receiver.test'],
  allowPrivateNetworks: false,
  resolve: {},
};

async function setup(t: Parameters<typeof buildTestApp>[0], dialect: (typeof dialects)[number], now?: () => number) {
  const { app } = await buildTestApp(t, { dialect, config: { exportPolicy: policy }, ...(now ? { now } : {}) });
  const owner = await userWithApp(app);
  const env = { appId: owner.appId, env: 'dev' };
  const qs = (extra: Record<string, string | number> = {}) =>
    new URLSearchParams(
      Object.entries({ ...env, ...extra }).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
  const create = (payload: object, idem: string | boolean = true) =>
    call(app, 'POST', '/api/v1/telemetry/exports', {
      token: owner.user.token,
      ...(idem === false ? {} : { idem }),
      payload: { ...env, ...payload },
    });
  return { app, owner, env, qs, create };
}

const target = { name: 'warehouse', url: 'https://hooks.example.com/ensign' };

describe('export policy', () => {
  test('targets: https, port 443, listed host only, no IP literal, no credentials', () => {
    assert.equal(checkTarget(policy, 'https://hooks.example.com/a?b=1'), 'https://hooks.example.com/a?b=1');
    assert.equal(checkTarget(policy, 'https://HOOKS.example.com:443/a'), 'https://hooks.example.com/a');
    for (const bad of [
      'http://hooks.example.com/',
      'https://hooks.example.com:8443/',
      'https://other.example.com/',
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://user:pw@hooks.example.com/',
      'https://sub.hooks.example.com/',
      'not a url',
      'https://hooks.example.com/#x',
    ]) {
      assert.throws(
        () => checkTarget(policy, bad),
        (err: any) => err.code === 'export_target_not_allowed' && err.statusCode === 400,
        bad,
      );
    }
  });

  test('delivery addresses: private ones are refused unless allowed; pins replace DNS', async () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      assert.equal(isPublicAddress(a), false, a);
    for (const a of ['93.184.216.34', '2606:2800:220:1::1']) assert.equal(isPublicAddress(a), true, a);
    const resolver = async () => ['93.184.216.34', '10.0.0.5'];
    await assert.rejects(
      resolveDeliveryAddress(policy, 'hooks.example.com', resolver),
      (err: any) => err.code === 'address_not_allowed',
    );
    assert.equal(
      await resolveDeliveryAddress({ ...policy, allowPrivateNetworks: true }, 'hooks.example.com', resolver),
      '93.184.216.34',
    );
    assert.equal(
      await resolveDeliveryAddress(
        { ...policy, resolve: { 'hooks.example.com': '93.184.216.34' } },
        'hooks.example.com',
        resolver,
      ),
      '93.184.216.34',
    );
    await assert.rejects(
      resolveDeliveryAddress(
        { ...policy, resolve: { 'hooks.example.com': '127.0.0.1' } },
        'hooks.example.com',
        resolver,
      ),
      (err: any) => err.code === 'address_not_allowed',
    );
  });
});

for (const dialect of dialects) {
  describe(`modules/exports destinations on ${dialect}`, () => {
    test('create shows the secret once; read, list and update never return it', async (t) => {
      const { app, owner, qs, create } = await setup(t, dialect);
      const res = await create({ ...target, kinds: ['outcome', 'exposure'], filters: { flagKeys: ['b', 'a', 'a'] } });
      assert.equal(res.statusCode, 201, res.body);
      const { destination, signingSecret } = res.json();
      assert.match(signingSecret, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.match(destination.id, /^dst_/);
      assert.deepEqual(
        { ...destination, id: undefined, createdAt: undefined, updatedAt: undefined },
        {
          id: undefined,
          appId: owner.appId,
          env: 'dev',
          name: 'warehouse',
          url: 'https://hooks.example.com/ensign',
          kinds: ['exposure', 'outcome'],
          filters: { flagKeys: ['a', 'b'] },
          batchSize: 500,
          status: 'active',
          version: 1,
          secretVersion: 1,
          createdAt: undefined,
          updatedAt: undefined,
        },
      );
      const got = await call(app, 'GET', `/api/v1/telemetry/exports/${destination.id}?${qs()}`, { token: owner.admin });
      assert.equal(got.statusCode, 200, got.body);
      assert.deepEqual(got.json().destination, destination);
      assert.deepEqual(got.json().health, {
        lastAttemptAt: null,
        lastSuccessAt: null,
        consecutiveFailures: 0,
        lastError: null,
        backlog: 0,
        oldestPendingAt: null,
      });
      assert.ok(!got.body.includes(signingSecret.slice(6)));
      const list = await call(app, 'GET', `/api/v1/telemetry/exports?${qs()}`, { token: owner.user.token });
      assert.ok(!list.body.includes(signingSecret.slice(6)));
      assert.deepEqual(list.json(), { destinations: [destination], nextCursor: null });

      const patched = await call(app, 'PATCH', `/api/v1/telemetry/exports/${destination.id}`, {
        token: owner.user.token,
        payload: { appId: owner.appId, env: 'dev', version: 1, status: 'paused', batchSize: 10 },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().destination.version, 2);
      assert.equal(patched.json().destination.status, 'paused');
      assert.equal(patched.json().destination.batchSize, 10);
      assert.ok(!patched.body.includes('whsec_'));
      const stale = await call(app, 'PATCH', `/api/v1/telemetry/exports/${destination.id}`, {
        token: owner.user.token,
        payload: { appId: owner.appId, env: 'dev', version: 1, status: 'active' },
      });
      expectError(stale, 409, 'version_conflict');
      const paused = await call(app, 'GET', `/api/v1/telemetry/exports?${qs({ status: 'paused' })}`, {
        token: owner.user.token,
      });
      assert.equal(paused.json().destinations.length, 1);
      assert.equal(
        (
          await call(app, 'GET', `/api/v1/telemetry/exports?${qs({ status: 'active' })}`, { token: owner.user.token })
        ).json().destinations.length,
        0,
      );
    });

    test('Idempotency-Key is required on create; a replay returns the same secret; name and key conflicts are 409', async (t) => {
      const { create } = await setup(t, dialect);
      expectError(await create(target, false), 400, 'idempotency_key_required');
      const key = uniqueKey();
      const first = await create(target, key);
      assert.equal(first.statusCode, 201);
      const replay = await create(target, key);
      assert.equal(replay.statusCode, 201);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().signingSecret, first.json().signingSecret);
      expectError(await create({ ...target, name: 'other' }, key), 409, 'idempotency_conflict');
      expectError(await create(target), 409, 'name_conflict');
    });

    test('policy refusals are 400 export_target_not_allowed and store nothing; bad bodies are 400', async (t) => {
      const { app, owner, qs, create } = await setup(t, dialect);
      for (const url of [
        'https://203.0.113.7/hook',
        'https://hooks.example.com:8443/hook',
        'https://unlisted.example.org/hook',
        'http://hooks.example.com/hook',
        'https://u:p@hooks.example.com/',
      ]) {
        expectError(await create({ ...target, url }), 400, 'export_target_not_allowed');
      }
      expectValidation(await create({ ...target, batchSize: 0 }));
      expectValidation(await create({ ...target, batchSize: 1001 }));
      expectValidation(await create({ ...target, kinds: ['click'] }));
      expectValidation(await create({ ...target, status: 'disabled' }));
      expectValidation(await create({ ...target, extra: 1 }));
      assert.deepEqual(
        (await call(app, 'GET', `/api/v1/telemetry/exports?${qs()}`, { token: owner.user.token })).json().destinations,
        [],
      );
      const id = (await create(target)).json().destination.id;
      const bad = await call(app, 'PATCH', `/api/v1/telemetry/exports/${id}`, {
        token: owner.user.token,
        payload: { appId: owner.appId, env: 'dev', version: 1, url: 'https://10.0.0.1/' },
      });
      expectError(bad, 400, 'export_target_not_allowed');
    });

    test('rotation: a new secret once, version CAS, secretVersion raised', async (t) => {
      const { app, owner, create } = await setup(t, dialect);
      const { destination, signingSecret } = (await create(target)).json();
      const rotated = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/rotate-secret`, {
        token: owner.user.token,
        payload: { appId: owner.appId, env: 'dev', version: 1 },
      });
      assert.equal(rotated.statusCode, 200, rotated.body);
      assert.notEqual(rotated.json().signingSecret, signingSecret);
      assert.match(rotated.json().signingSecret, /^whsec_/);
      assert.equal(rotated.json().destination.secretVersion, 2);
      assert.equal(rotated.json().destination.version, 2);
      expectError(
        await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/rotate-secret`, {
          token: owner.user.token,
          payload: { appId: owner.appId, env: 'dev', version: 1 },
        }),
        409,
        'version_conflict',
      );
      expectValidation(
        await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/rotate-secret`, {
          token: owner.user.token,
          payload: { appId: owner.appId, env: 'dev', version: 0 },
        }),
      );
    });

    test('every destination change is journaled, and no entry holds a signing secret', async (t) => {
      const { app, owner, env, create } = await setup(t, dialect);
      const created = (await create(target)).json();
      const id = created.destination.id;
      const updated = await call(app, 'PATCH', `/api/v1/telemetry/exports/${id}`, {
        token: owner.user.token,
        headers: { 'x-ensign-source': 'cli' },
        payload: { ...env, version: 1, status: 'paused' },
      });
      assert.equal(updated.statusCode, 200, updated.body);
      const rotated = (
        await call(app, 'POST', `/api/v1/telemetry/exports/${id}/rotate-secret`, {
          token: owner.user.token,
          payload: { ...env, version: 2 },
        })
      ).json();
      const res = await call(
        app,
        'GET',
        `/api/v1/changes?${new URLSearchParams({ appId: owner.appId, resourceType: 'export_destination' })}`,
        { token: owner.user.token },
      );
      assert.equal(res.statusCode, 200, res.body);
      const entries = res.json().changes;
      assert.deepEqual(entries.map((e: any) => e.operation).sort(), [
        'export.create',
        'export.rotate_secret',
        'export.update',
      ]);
      for (const e of entries)
        assert.deepEqual(
          [e.resourceId, e.env, e.authority.userId],
          [id, 'dev', owner.user.userId ?? e.authority.userId],
        );
      const update = entries.find((e: any) => e.operation === 'export.update');
      assert.equal(update.source, 'cli');
      assert.ok(
        update.diff.some((d: any) => JSON.stringify(d).includes('paused')),
        JSON.stringify(update.diff),
      );
      for (const secret of [created.signingSecret, rotated.signingSecret])
        assert.ok(!res.body.includes(secret), 'no signing secret in the journal');
      assert.ok(!res.body.includes('whsec_'));
    });

    test('pagination, 404s, strangers and environment keys', async (t) => {
      const { app, owner, qs, create } = await setup(t, dialect);
      for (const name of ['a', 'b', 'c']) assert.equal((await create({ ...target, name })).statusCode, 201);
      const page1 = (
        await call(app, 'GET', `/api/v1/telemetry/exports?${qs({ limit: 2 })}`, { token: owner.user.token })
      ).json();
      assert.deepEqual(
        page1.destinations.map((d: any) => d.name),
        ['a', 'b'],
      );
      const page2 = (
        await call(app, 'GET', `/api/v1/telemetry/exports?${qs({ limit: 2, cursor: page1.nextCursor })}`, {
          token: owner.user.token,
        })
      ).json();
      assert.deepEqual(
        page2.destinations.map((d: any) => d.name),
        ['c'],
      );
      assert.equal(page2.nextCursor, null);
      expectValidation(
        await call(app, 'GET', `/api/v1/telemetry/exports?${qs({ cursor: 'nope' })}`, { token: owner.user.token }),
      );
      expectValidation(
        await call(app, 'GET', `/api/v1/telemetry/exports?${qs({ limit: 101 })}`, { token: owner.user.token }),
      );
      expectError(
        await call(app, 'GET', `/api/v1/telemetry/exports/dst_missing?${qs()}`, { token: owner.user.token }),
        404,
        'not_found',
      );
      const id = page1.destinations[0].id;
      expectError(
        await call(
          app,
          'GET',
          `/api/v1/telemetry/exports/${id}?${new URLSearchParams({ appId: owner.appId, env: 'prod' })}`,
          { token: owner.user.token },
        ),
        404,
        'not_found',
      );
      const stranger = await signUp(app);
      expectError(
        await call(app, 'GET', `/api/v1/telemetry/exports?${qs()}`, { token: stranger.token }),
        403,
        'forbidden',
      );
      expectError(
        await call(app, 'POST', '/api/v1/telemetry/exports', {
          token: stranger.token,
          idem: true,
          payload: { appId: owner.appId, env: 'dev', ...target },
        }),
        403,
        'forbidden',
      );
      expectError(
        await call(app, 'GET', `/api/v1/telemetry/exports?${qs()}`, { token: owner.sdk.dev! }),
        401,
        'unauthorized',
      );
    });
  });
}

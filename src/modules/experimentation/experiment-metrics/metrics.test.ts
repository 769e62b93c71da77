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
import { journalOf } from '../../core/flags/flags.test-client.js';

async function setup(t: Parameters<typeof buildTestApp>[0], dialect: (typeof dialects)[number]) {
  const { app } = await buildTestApp(t, { dialect });
  const owner = await userWithApp(app);
  const env = { appId: owner.appId, env: 'dev' };
  const qs = (extra: Record<string, string | number> = {}) =>
    new URLSearchParams(
      Object.entries({ ...env, ...extra }).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
  return { app, owner, env, qs };
}

const conversion = {
  key: 'checkout-conversion',
  name: 'Checkout conversion',
  kind: 'proportion',
  eventMetricKey: 'checkout.completed',
  direction: 'increase',
};

for (const dialect of dialects) {
  describe(`metrics on ${dialect}`, () => {
    test('create at revision 1, revise twice, every revision stays readable', async (t) => {
      const { app, owner, env, qs } = await setup(t, dialect);
      const created = await call(app, 'POST', '/api/v1/metrics', {
        token: owner.user.token,
        idem: true,
        payload: { ...env, ...conversion },
      });
      assert.equal(created.statusCode, 201, created.body);
      const metric = created.json().metric;
      assert.match(metric.id, /^met_/);
      assert.deepEqual(
        { ...metric, id: undefined, createdAt: undefined },
        {
          id: undefined,
          appId: owner.appId,
          env: 'dev',
          key: 'checkout-conversion',
          revision: 1,
          name: 'Checkout conversion',
          kind: 'proportion',
          eventMetricKey: 'checkout.completed',
          denominatorMetricKey: null,
          direction: 'increase',
          winsorizePercentile: null,
          description: '',
          createdAt: undefined,
          createdBy: { type: 'user', userId: owner.user.userId },
        },
      );

      const r2 = await call(app, 'POST', `/api/v1/metrics/${metric.id}/revisions`, {
        token: owner.user.token,
        payload: { ...env, revision: 1, name: 'Conversion', winsorizePercentile: 99 },
      });
      assert.equal(r2.statusCode, 200, r2.body);
      assert.equal(r2.json().metric.revision, 2);
      assert.equal(r2.json().metric.eventMetricKey, 'checkout.completed', 'fields not given are kept');
      const r3 = await call(app, 'POST', `/api/v1/metrics/${metric.id}/revisions`, {
        token: owner.admin,
        payload: { ...env, revision: 2, kind: 'ratio', denominatorMetricKey: 'checkout.started' },
      });
      assert.equal(r3.statusCode, 200, r3.body);
      assert.equal(r3.json().metric.revision, 3);
      assert.equal(r3.json().metric.createdBy.type, 'admin_key');

      const head = await call(app, 'GET', `/api/v1/metrics/${metric.id}?${qs()}`, { token: owner.user.token });
      assert.equal(head.json().metric.revision, 3);
      assert.equal(head.json().metric.kind, 'ratio');
      const first = await call(app, 'GET', `/api/v1/metrics/${metric.id}?${qs({ revision: 1 })}`, {
        token: owner.user.token,
      });
      assert.deepEqual(first.json().metric, metric, 'revision 1 is exactly what was created');
      const history = await call(app, 'GET', `/api/v1/metrics/${metric.id}/revisions?${qs()}`, {
        token: owner.user.token,
      });
      assert.deepEqual(
        history.json().revisions.map((r: any) => [r.revision, r.name, r.kind]),
        [
          [1, 'Checkout conversion', 'proportion'],
          [2, 'Conversion', 'proportion'],
          [3, 'Conversion', 'ratio'],
        ],
      );

      const list = await call(app, 'GET', `/api/v1/metrics?${qs()}`, { token: owner.user.token });
      assert.deepEqual(
        list.json().metrics.map((m: any) => [m.key, m.revision]),
        [['checkout-conversion', 3]],
      );
      expectError(
        await call(app, 'GET', `/api/v1/metrics/${metric.id}?${qs({ revision: 4 })}`, { token: owner.user.token }),
        404,
        'not_found',
      );
      expectError(
        await call(app, 'GET', `/api/v1/metrics/met_missing?${qs()}`, { token: owner.user.token }),
        404,
        'not_found',
      );
      const other = await call(
        app,
        'GET',
        `/api/v1/metrics/${metric.id}?${new URLSearchParams({ appId: owner.appId, env: 'prod' })}`,
        { token: owner.user.token },
      );
      expectError(other, 404, 'not_found');

      const changes = await journalOf(app, owner.user.token, owner.appId, { resourceType: 'metric' });
      assert.deepEqual(
        changes.map((c) => c.operation),
        ['metric.revise', 'metric.revise', 'metric.create'],
      );
    });

    test('a stale revision is 409 version_conflict with the current revision; a no-op appends nothing', async (t) => {
      const { app, owner, env, qs } = await setup(t, dialect);
      const id = (
        await call(app, 'POST', '/api/v1/metrics', { token: owner.user.token, payload: { ...env, ...conversion } })
      ).json().metric.id;
      await call(app, 'POST', `/api/v1/metrics/${id}/revisions`, {
        token: owner.user.token,
        payload: { ...env, revision: 1, description: 'v2' },
      });
      const stale = await call(app, 'POST', `/api/v1/metrics/${id}/revisions`, {
        token: owner.user.token,
        payload: { ...env, revision: 1, description: 'v3' },
      });
      assert.deepEqual(expectError(stale, 409, 'version_conflict').metadata, { currentRevision: 2 });
      const same = await call(app, 'POST', `/api/v1/metrics/${id}/revisions`, {
        token: owner.user.token,
        payload: { ...env, revision: 2, description: 'v2' },
      });
      assert.equal(same.statusCode, 200);
      assert.equal(same.json().metric.revision, 2);
      assert.equal(
        (await call(app, 'GET', `/api/v1/metrics/${id}/revisions?${qs()}`, { token: owner.user.token })).json()
          .revisions.length,
        2,
      );
    });

    test('concurrent appends on one head: exactly one wins, the others are version_conflict', async (t) => {
      const { app, owner, env, qs } = await setup(t, dialect);
      const id = (
        await call(app, 'POST', '/api/v1/metrics', { token: owner.user.token, payload: { ...env, ...conversion } })
      ).json().metric.id;
      const answers = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          call(app, 'POST', `/api/v1/metrics/${id}/revisions`, {
            token: owner.user.token,
            payload: { ...env, revision: 1, description: `writer ${n}` },
          }),
        ),
      );
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 409, 409, 409, 409]);
      for (const r of answers.filter((a) => a.statusCode === 409))
        assert.equal(r.json().error.code, 'version_conflict');
      assert.deepEqual(
        (await call(app, 'GET', `/api/v1/metrics/${id}/revisions?${qs()}`, { token: owner.user.token }))
          .json()
          .revisions.map((r: any) => r.revision),
        [1, 2],
      );
    });

    test('key_conflict, idempotent replay, idempotency_conflict', async (t) => {
      const { app, owner, env, qs } = await setup(t, dialect);
      const key = uniqueKey();
      const first = await call(app, 'POST', '/api/v1/metrics', {
        token: owner.user.token,
        idem: key,
        payload: { ...env, ...conversion },
      });
      const replay = await call(app, 'POST', '/api/v1/metrics', {
        token: owner.user.token,
        idem: key,
        payload: { ...env, ...conversion },
      });
      assert.equal(replay.statusCode, 201);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, first.body);
      expectError(
        await call(app, 'POST', '/api/v1/metrics', {
          token: owner.user.token,
          idem: key,
          payload: { ...env, ...conversion, name: 'Other' },
        }),
        409,
        'idempotency_conflict',
      );
      expectError(
        await call(app, 'POST', '/api/v1/metrics', {
          token: owner.user.token,
          idem: true,
          payload: { ...env, ...conversion },
        }),
        409,
        'key_conflict',
      );
      // The same key in another environment is another metric.
      const prod = await call(app, 'POST', '/api/v1/metrics', {
        token: owner.user.token,
        payload: { ...env, env: 'prod', ...conversion },
      });
      assert.equal(prod.statusCode, 201);
      assert.equal(
        (await call(app, 'GET', `/api/v1/metrics?${qs()}`, { token: owner.user.token })).json().metrics.length,
        1,
      );
    });

    test('bad input is 400 and stores nothing; other users are refused', async (t) => {
      const { app, owner, env, qs } = await setup(t, dialect);
      const post = (payload: object) =>
        call(app, 'POST', '/api/v1/metrics', {
          token: owner.user.token,
          payload: { ...env, ...conversion, ...payload },
        });
      expectValidation(await post({ kind: 'ratio' }), '/denominatorMetricKey');
      expectValidation(await post({ denominatorMetricKey: 'x' }), '/denominatorMetricKey');
      expectValidation(await post({ winsorizePercentile: 80 }));
      expectValidation(await post({ kind: 'median' }));
      expectValidation(await post({ key: '-bad key' }));
      expectValidation(await post({ extra: 1 }));
      assert.deepEqual(
        (await call(app, 'GET', `/api/v1/metrics?${qs()}`, { token: owner.user.token })).json().metrics,
        [],
      );
      const stranger = await signUp(app);
      expectError(await call(app, 'GET', `/api/v1/metrics?${qs()}`, { token: stranger.token }), 403, 'forbidden');
      expectError(
        await call(app, 'POST', '/api/v1/metrics', { token: stranger.token, payload: { ...env, ...conversion } }),
        403,
        'forbidden',
      );
      expectError(await call(app, 'GET', `/api/v1/metrics?${qs()}`, { token: owner.sdk.dev! }), 401, 'unauthorized');
    });
  });
}

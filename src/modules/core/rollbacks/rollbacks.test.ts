import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import {
  addMember,
  call,
  expectError,
  expectValidation,
  signUp,
  uniqueKey,
  userWithApp,
} from '../../../../test/helpers/fixtures.js';
import { flagsClient, journalOf } from '../flags/flags.test-client.js';

async function setup(t: Parameters<typeof buildTestApp>[0], dialect: (typeof dialects)[number]) {
  const { app } = await buildTestApp(t, { dialect });
  const s = await userWithApp(app);
  const flags = flagsClient(app, s.user.token, s.appId);
  const rb = rollbackClient(app, s.user.token, s.appId);
  return { app, s, flags, rb };
}

function rollbackClient(app: FastifyInstance, token: string, appId: string, env = 'dev') {
  return {
    plan: (body: Record<string, unknown>, t = token) =>
      call(app, 'POST', '/api/v1/rollbacks/plan', { token: t, payload: { appId, env, ...body } }),
    apply: (body: Record<string, unknown>, options: { token?: string; key?: string | null } = {}) =>
      call(app, 'POST', '/api/v1/rollbacks/apply', {
        token: options.token ?? token,
        payload: {
          appId,
          env,
          ...(options.key === null ? {} : { idempotencyKey: options.key ?? uniqueKey() }),
          ...body,
        },
      }),
  };
}

/** Three versions: a created, b created, a changed and c created; privacy and ttl changed in version 4. */
async function history(flags: ReturnType<typeof flagsClient>) {
  await flags.patch({ key: 'a', type: 'string', value: 'one', overrides: { 'user-1': 'vip' } });
  await flags.patch({ key: 'b', type: 'bool', value: true, clientEnabled: true });
  await flags.patch({ key: 'a', value: 'two' });
  await flags.patch({ key: 'c', type: 'number', value: 3 });
  await flags.bulk({ advanced: { ttlSeconds: 30 }, privacy: { privateAttributes: ['email'] } });
  return (await flags.list()).json().version as number;
}

for (const dialect of dialects) {
  describe(`rollbacks on ${dialect}`, () => {
    test('plan: the diff from now back to the target, digests, deterministic bytes; nothing changes', async (t) => {
      const { flags, rb } = await setup(t, dialect);
      const current = await history(flags);
      assert.equal(current, 5);
      const res = await rb.plan({ targetVersion: 2, expectedVersion: 5 });
      assert.equal(res.statusCode, 200, res.body);
      const { plan } = res.json();
      const diff = (await flags.versions('/diff', { from: 5, to: 2 })).json();
      assert.deepEqual(plan.changes, diff.changes, 'same entries and order as the config-versions diff');
      assert.deepEqual(plan.visibility, diff.visibility);
      assert.deepEqual(plan.dependencies, diff.dependencies);
      assert.equal(plan.fromState, diff.rollback.fromState);
      assert.equal(plan.toState, diff.rollback.toState);
      assert.deepEqual(
        [plan.appId, plan.env, plan.fromVersion, plan.targetVersion, plan.resultVersion],
        [plan.appId, 'dev', 5, 2, 6],
      );
      assert.deepEqual(plan.scope, { flags: null, advanced: true, privacy: true });
      assert.match(plan.digest, /^[0-9a-f]{64}$/);
      assert.ok(
        plan.warnings.some((w: string) => w.includes('"c"')),
        'c did not exist at version 2',
      );
      assert.equal((await rb.plan({ targetVersion: 2, expectedVersion: 5 })).body, res.body, 'same inputs, same bytes');
      assert.equal((await flags.list()).json().version, 5);
    });

    test('apply restores the target state byte for byte as version N+1; older versions stay; journaled with target and digest', async (t) => {
      const { app, s, flags, rb } = await setup(t, dialect);
      await history(flags);
      const before = await Promise.all([0, 1, 2, 3, 4, 5].map(async (v) => (await flags.versions(`/${v}`)).body));
      const { plan } = (await rb.plan({ targetVersion: 2, expectedVersion: 5 })).json();
      const res = await rb.apply({
        targetVersion: 2,
        expectedVersion: 5,
        planDigest: plan.digest,
        reason: 'bad release',
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.version, 6);
      assert.match(body.changeId, /^chg_/);
      assert.deepEqual(body.plan, plan);
      assert.equal(body.replay.replayed, false);
      const restored = (await flags.versions('/6')).json();
      const target = (await flags.versions('/2')).json();
      assert.equal(JSON.stringify(restored.state), JSON.stringify(target.state), 'byte for byte');
      const after = await Promise.all([0, 1, 2, 3, 4, 5].map(async (v) => (await flags.versions(`/${v}`)).body));
      assert.deepEqual(after, before, 'history is never rewritten');
      const [entry] = await journalOf(app, s.user.token, s.appId, { operation: 'rollback.apply' });
      assert.equal(entry.id, body.changeId);
      assert.equal(entry.source, 'rollback');
      assert.deepEqual([entry.beforeVersion, entry.afterVersion], [5, 6]);
      assert.deepEqual(entry.context, {
        targetVersion: 2,
        planDigest: plan.digest,
        scope: plan.scope,
        reason: 'bad release',
      });
      assert.ok(!JSON.stringify(entry.diff).includes('user-1'), 'override subjects are redacted');
      const listed = (await flags.versions('', { limit: 1 })).json().versions[0];
      assert.equal(listed.operation, 'rollback.apply');
      // Delivery serves the restored configuration.
      const delivered = await call(app, 'GET', '/api/v1/config', { token: s.sdk.dev! });
      assert.equal(delivered.json().version, 6);
      assert.equal(delivered.json().doc.flags.a.value, 'one');
      assert.equal(delivered.json().doc.flags.c, undefined);
    });

    test('idempotency: a replay answers the first body; another request with the key is 409; a key is required', async (t) => {
      const { flags, rb } = await setup(t, dialect);
      await history(flags);
      const { plan } = (await rb.plan({ targetVersion: 1, expectedVersion: 5 })).json();
      const key = uniqueKey();
      const first = await rb.apply({ targetVersion: 1, expectedVersion: 5, planDigest: plan.digest }, { key });
      const again = await rb.apply({ targetVersion: 1, expectedVersion: 5, planDigest: plan.digest }, { key });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(
        { ...(again.json() as object), replay: undefined },
        { ...(first.json() as object), replay: undefined },
      );
      assert.equal(again.json().replay.replayed, true);
      expectError(
        await rb.apply({ targetVersion: 2, expectedVersion: 5, planDigest: plan.digest }, { key }),
        409,
        'idempotency_conflict',
      );
      expectError(
        await rb.apply({ targetVersion: 1, expectedVersion: 6, planDigest: plan.digest }, { key: null }),
        400,
        'idempotency_key_required',
      );
      assert.equal((await flags.list()).json().version, 6);
    });

    test('stale inputs are 409 and change nothing: version_conflict with currentVersion, plan_conflict on another digest', async (t) => {
      const { flags, rb } = await setup(t, dialect);
      await history(flags);
      const { plan } = (await rb.plan({ targetVersion: 2, expectedVersion: 5 })).json();
      assert.equal(
        expectError(await rb.plan({ targetVersion: 2, expectedVersion: 4 }), 409, 'version_conflict').metadata
          ?.currentVersion,
        5,
      );
      await flags.patch({ key: 'b', op: 'toggle' });
      assert.equal(
        expectError(
          await rb.apply({ targetVersion: 2, expectedVersion: 5, planDigest: plan.digest }),
          409,
          'version_conflict',
        ).metadata?.currentVersion,
        6,
      );
      // The same version but a plan reviewed for another state or scope.
      const error = expectError(
        await rb.apply({ targetVersion: 2, expectedVersion: 6, planDigest: plan.digest }),
        409,
        'plan_conflict',
      );
      assert.match(error.resolution, /rollbacks\/plan/);
      const other = (await rb.plan({ targetVersion: 2, expectedVersion: 6, scope: { flags: ['a'] } })).json().plan;
      expectError(
        await rb.apply({ targetVersion: 2, expectedVersion: 6, planDigest: other.digest }),
        409,
        'plan_conflict',
      );
      assert.equal((await flags.list()).json().version, 6);
    });

    test('404 for a version not retained; 400 for bad inputs', async (t) => {
      const { flags, rb } = await setup(t, dialect);
      await history(flags);
      expectError(await rb.plan({ targetVersion: 9, expectedVersion: 5 }), 404, 'not_found');
      expectError(
        await rb.apply({ targetVersion: 9, expectedVersion: 5, planDigest: 'a'.repeat(64) }),
        404,
        'not_found',
      );
      expectValidation(await rb.plan({ targetVersion: -1, expectedVersion: 5 }), '/targetVersion');
      expectValidation(await rb.plan({ targetVersion: 1 }), '/expectedVersion');
      expectValidation(
        await rb.plan({ targetVersion: 1, expectedVersion: 5, scope: { everything: true } }),
        '/scope/everything',
      );
      expectValidation(await rb.apply({ targetVersion: 1, expectedVersion: 5 }), '/planDigest');
      expectValidation(await rb.apply({ targetVersion: 1, expectedVersion: 5, planDigest: 'nope' }), '/planDigest');
      expectValidation(
        await rb.apply({ targetVersion: 1, expectedVersion: 5, planDigest: 'a'.repeat(64), reason: 'x'.repeat(1001) }),
        '/reason',
      );
    });

    test('400 rollback_invalid when the scoped result breaks a prerequisite or makes a cycle', async (t) => {
      const { flags, rb } = await setup(t, dialect);
      await flags.patch({ key: 'a', type: 'bool', value: true });
      await flags.patch({ key: 'b', type: 'bool', value: true, dependencies: [{ flag: 'a', value: true }] });
      // Restoring only `a` to version 0 deletes it while b still requires it.
      const broken = expectError(
        await rb.plan({ targetVersion: 0, expectedVersion: 2, scope: { flags: ['a'] } }),
        400,
        'rollback_invalid',
      );
      assert.ok(
        broken.details?.some((d) => d.path === '/flags/b/dependencies/0/flag'),
        JSON.stringify(broken.details),
      );
      // A cycle: b → a at version 2; a → b added later once b no longer requires a.
      await flags.patch({ key: 'b', dependencies: [] });
      await flags.patch({ key: 'a', dependencies: [{ flag: 'b', value: true }] });
      const cycle = expectError(
        await rb.plan({ targetVersion: 2, expectedVersion: 4, scope: { flags: ['b'] } }),
        400,
        'rollback_invalid',
      );
      assert.match(JSON.stringify(cycle.details), /cycle/i);
      expectError(
        await rb.apply({ targetVersion: 2, expectedVersion: 4, scope: { flags: ['b'] }, planDigest: 'a'.repeat(64) }),
        400,
        'rollback_invalid',
      );
      // The whole state of version 2 is valid.
      assert.equal((await rb.plan({ targetVersion: 2, expectedVersion: 4 })).statusCode, 200);
    });

    test('scopes restore only what they name; a plan without changes applies as a no-op (changeId null)', async (t) => {
      const { flags, rb } = await setup(t, dialect);
      await history(flags);
      const only = (await rb.plan({ targetVersion: 1, expectedVersion: 5, scope: { flags: ['a', 'a'] } })).json().plan;
      assert.deepEqual(only.scope, { flags: ['a'], advanced: false, privacy: false });
      assert.deepEqual(
        only.changes.map((c: any) => [c.resourceType, c.key, c.path]),
        [['flag', 'a', '/value']],
      );
      const applied = (
        await rb.apply({ targetVersion: 1, expectedVersion: 5, scope: { flags: ['a'] }, planDigest: only.digest })
      ).json();
      const state = (await flags.versions(`/${applied.version}`)).json().state;
      assert.deepEqual(
        [state.flags.a.value, state.flags.c.value, state.settings.ttlSeconds, state.privacy.privateAttributes],
        ['one', 3, 30, ['email']],
      );
      const settings = (await rb.plan({ targetVersion: 0, expectedVersion: 6, scope: { advanced: true } })).json().plan;
      assert.deepEqual(
        settings.changes.map((c: any) => [c.resourceType, c.key]),
        [['settings', 'ttlSeconds']],
      );
      const privacy = (await rb.plan({ targetVersion: 0, expectedVersion: 6, scope: { privacy: true } })).json().plan;
      assert.deepEqual(
        privacy.changes.map((c: any) => [c.resourceType, c.key]),
        [['privacy', 'privateAttributes']],
      );
      const none = (await rb.plan({ targetVersion: 6, expectedVersion: 6 })).json().plan;
      assert.deepEqual([none.changes, none.resultVersion], [[], 6]);
      assert.ok(none.warnings[0].includes('current version'));
      const noop = await rb.apply({ targetVersion: 6, expectedVersion: 6, planDigest: none.digest });
      assert.equal(noop.statusCode, 200, noop.body);
      assert.deepEqual([noop.json().version, noop.json().changeId], [6, null]);
    });

    test('viewers plan but cannot apply; protected environments refuse apply (403 approval_required) and still plan', async (t) => {
      const { app, s, flags, rb } = await setup(t, dialect);
      await history(flags);
      const viewer = await signUp(app);
      await addMember(app, s.user.token, s.appId, viewer, 'viewer');
      const { plan } = (await rb.plan({ targetVersion: 1, expectedVersion: 5 }, viewer.token)).json();
      expectError(
        await rb.apply({ targetVersion: 1, expectedVersion: 5, planDigest: plan.digest }, { token: viewer.token }),
        403,
        'forbidden',
      );
      await call(app, 'PATCH', '/api/v1/envs', {
        token: s.user.token,
        payload: { appId: s.appId, env: 'dev', requiredApprovals: 1 },
      });
      assert.equal((await rb.plan({ targetVersion: 1, expectedVersion: 5 })).statusCode, 200);
      const error = expectError(
        await rb.apply({ targetVersion: 1, expectedVersion: 5, planDigest: plan.digest }),
        403,
        'approval_required',
      );
      assert.match(error.resolution, /authority/);
      expectError(await rb.plan({ targetVersion: 1, expectedVersion: 5 }, s.sdk.dev!), 401, 'unauthorized');
      expectError(await rb.plan({ targetVersion: 1, expectedVersion: 5 }, (await signUp(app)).token), 403, 'forbidden');
      assert.equal((await flags.list()).json().version, 5);
    });
  });
}

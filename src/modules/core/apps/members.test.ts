import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import {
  addMember,
  call,
  expectError,
  expectValidation,
  signUp,
  userWithApp,
} from '../../../../test/helpers/fixtures.js';
import { flagsClient, journalOf } from '../flags/flags.test-client.js';

/** An owner with an app, plus an editor and a viewer who accepted its invitations. */
async function team(app: FastifyInstance) {
  const owner = await userWithApp(app);
  const editor = await signUp(app);
  const viewer = await signUp(app);
  const outsider = await signUp(app);
  // Invited by an upper-cased address: invitations match the address as sign-up stores it.
  for (const [user, role] of [
    [editor, 'editor'],
    [viewer, 'viewer'],
  ] as const)
    await addMember(app, owner.user.token, owner.appId, { ...user, email: user.email.toUpperCase() }, role);
  return { ...owner, owner: owner.user, editor, viewer, outsider };
}

const members = (app: FastifyInstance, appId: string, token: string) =>
  call(app, 'GET', `/api/v1/apps/${appId}/members`, { token });
const setRole = (app: FastifyInstance, appId: string, token: string, userId: string, role: unknown) =>
  call(app, 'PATCH', `/api/v1/apps/${appId}/members/${userId}`, { token, payload: { role } });
const removeMember = (app: FastifyInstance, appId: string, token: string, userId: string) =>
  call(app, 'DELETE', `/api/v1/apps/${appId}/members/${userId}`, { token });
const setPolicy = (app: FastifyInstance, token: string, payload: Record<string, unknown>) =>
  call(app, 'PATCH', '/api/v1/envs', { token, payload });

for (const dialect of dialects) {
  describe(`members and roles on ${dialect}`, () => {
    // Each test makes its own users and apps, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('the creator is the first owner; invited users who accept are members; members see the app with their role', async () => {
      const { app } = shared();
      const s = await team(app);
      const list = await members(app, s.appId, s.viewer.token);
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().members.map((m: any) => [m.userId, m.email, m.role]),
        [
          [s.owner.userId, s.owner.email, 'owner'],
          [s.editor.userId, s.editor.email, 'editor'],
          [s.viewer.userId, s.viewer.email, 'viewer'],
        ],
      );
      for (const [user, role] of [
        [s.owner, 'owner'],
        [s.editor, 'editor'],
        [s.viewer, 'viewer'],
      ] as const) {
        const apps = (await call(app, 'GET', '/api/v1/apps', { token: user.token })).json().apps;
        assert.deepEqual(
          apps.map((a: any) => [a.id, a.role]),
          [[s.appId, role]],
        );
      }
      assert.deepEqual((await call(app, 'GET', '/api/v1/apps', { token: s.outsider.token })).json().apps, []);
      expectError(await members(app, s.appId, s.outsider.token), 403, 'forbidden');
      expectError(await members(app, 'app_missing', s.owner.token), 404, 'not_found');
      const journal = await journalOf(app, s.owner.token, s.appId, { resourceType: 'member' });
      assert.deepEqual(journal.map((e) => [e.operation, e.resourceId, e.diff[0].after]).reverse(), [
        ['member.join', s.editor.userId, { role: 'editor' }],
        ['member.join', s.viewer.userId, { role: 'viewer' }],
      ]);
      assert.ok(!JSON.stringify(journal).includes(s.editor.email), 'the journal names people by id');
    });

    test('inviting: an existing member 409, bad bodies 400; only owners (editors, viewers, admin keys 403)', async () => {
      const { app } = shared();
      const s = await team(app);
      const add = (token: string, payload: unknown) =>
        call(app, 'POST', `/api/v1/apps/${s.appId}/members`, { token, payload });
      expectError(await add(s.owner.token, { email: s.editor.email, role: 'viewer' }), 409, 'member_exists');
      expectError(
        await add(s.owner.token, { email: s.editor.email.toUpperCase(), role: 'viewer' }),
        409,
        'member_exists',
      );
      expectValidation(await add(s.owner.token, { email: s.outsider.email, role: 'admin' }), '/role');
      expectValidation(await add(s.owner.token, { email: 'not-an-email', role: 'viewer' }), '/email');
      expectValidation(await add(s.owner.token, { email: s.outsider.email, role: 'viewer', extra: 1 }), '/extra');
      for (const token of [s.editor.token, s.viewer.token, s.admin]) {
        const error = expectError(await add(token, { email: s.outsider.email, role: 'viewer' }), 403, 'forbidden');
        assert.equal(error.metadata?.required, 'members');
      }
      expectError(await add(s.outsider.token, { email: s.outsider.email, role: 'owner' }), 403, 'forbidden');
      assert.equal((await members(app, s.appId, s.owner.token)).json().members.length, 3);
    });

    test('viewers read but every write is 403 forbidden; editors change configuration but not members, policy or keys', async () => {
      const { app } = shared();
      const s = await team(app);
      const asViewer = flagsClient(app, s.viewer.token, s.appId);
      const asEditor = flagsClient(app, s.editor.token, s.appId);
      assert.equal((await asEditor.patch({ key: 'a', type: 'bool', value: false })).statusCode, 200);
      for (const res of [
        await asViewer.list(),
        await asViewer.versions(),
        await call(app, 'GET', `/api/v1/keys?appId=${s.appId}`, { token: s.viewer.token }),
        await call(app, 'GET', `/api/v1/changes?appId=${s.appId}`, { token: s.viewer.token }),
        await call(app, 'GET', `/api/v1/envs?appId=${s.appId}`, { token: s.viewer.token }),
      ]) {
        assert.equal(res.statusCode, 200, res.body);
      }
      for (const res of [
        await asViewer.patch({ key: 'a', op: 'toggle' }),
        await asViewer.patch({ key: 'b', type: 'bool', value: true }),
        await asViewer.remove('a'),
        await asViewer.bulk({ flags: { a: true } }),
        await asViewer.bulk({ flags: { a: true } }, { method: 'POST' }),
        await call(app, 'POST', '/api/v1/keys', {
          token: s.viewer.token,
          idem: true,
          payload: { appId: s.appId, env: 'dev', type: 'sdk' },
        }),
      ]) {
        const error = expectError(res, 403, 'forbidden');
        assert.equal(error.metadata?.role, 'viewer');
      }
      assert.equal((await asViewer.list()).json().version, 1, 'nothing was written');
      assert.equal(
        (
          await call(app, 'POST', '/api/v1/keys', {
            token: s.editor.token,
            idem: true,
            payload: { appId: s.appId, env: 'dev', type: 'pub' },
          })
        ).statusCode,
        201,
      );
      expectError(
        await call(app, 'POST', '/api/v1/keys', {
          token: s.editor.token,
          idem: true,
          payload: { appId: s.appId, type: 'admin' },
        }),
        403,
        'forbidden',
      );
      const keyId = s.body.keys[0].id;
      expectError(
        await call(app, 'PATCH', '/api/v1/keys', { token: s.editor.token, payload: { keyId, action: 'revoke' } }),
        403,
        'forbidden',
      );
      expectError(
        await setPolicy(app, s.editor.token, { appId: s.appId, env: 'prod', requiredApprovals: 1 }),
        403,
        'forbidden',
      );
      expectError(await setRole(app, s.appId, s.editor.token, s.viewer.userId, 'editor'), 403, 'forbidden');
    });

    test('roles change and members leave; the last owner can be neither demoted nor removed (409 last_owner)', async () => {
      const { app } = shared();
      const s = await team(app);
      expectError(await setRole(app, s.appId, s.owner.token, s.owner.userId, 'editor'), 409, 'last_owner');
      expectError(await removeMember(app, s.appId, s.owner.token, s.owner.userId), 409, 'last_owner');
      expectValidation(await setRole(app, s.appId, s.owner.token, s.editor.userId, 'boss'), '/role');
      expectError(await setRole(app, s.appId, s.owner.token, s.outsider.userId, 'editor'), 404, 'not_found');
      const promoted = await setRole(app, s.appId, s.owner.token, s.editor.userId, 'owner');
      assert.equal(promoted.statusCode, 200, promoted.body);
      assert.equal(promoted.json().member.role, 'owner');
      // Two owners now: the first may step down, and the second is then the last.
      assert.equal((await setRole(app, s.appId, s.owner.token, s.owner.userId, 'viewer')).json().member.role, 'viewer');
      expectError(await removeMember(app, s.appId, s.editor.token, s.editor.userId), 409, 'last_owner');
      expectError(
        await flagsClient(app, s.owner.token, s.appId).patch({ key: 'x', type: 'bool', value: true }),
        403,
        'forbidden',
      );
      const removed = await removeMember(app, s.appId, s.editor.token, s.viewer.userId);
      assert.equal(removed.statusCode, 204, removed.body);
      expectError(await flagsClient(app, s.viewer.token, s.appId).list(), 403, 'forbidden');
      expectError(await removeMember(app, s.appId, s.editor.token, s.viewer.userId), 404, 'not_found');
      const ops = (await journalOf(app, s.editor.token, s.appId, { resourceType: 'member' })).map((e) => e.operation);
      assert.deepEqual(ops.slice(0, 3), ['member.remove', 'member.update', 'member.update']);
    });

    test('concurrent demotions of the two owners leave one owner', async () => {
      const { app } = shared();
      const s = await team(app);
      await setRole(app, s.appId, s.owner.token, s.editor.userId, 'owner');
      const results = await Promise.all([
        setRole(app, s.appId, s.owner.token, s.editor.userId, 'viewer'),
        setRole(app, s.appId, s.editor.token, s.owner.userId, 'viewer'),
      ]);
      const statuses = results.map((r) => r.statusCode).sort();
      assert.ok(statuses.includes(409) || statuses.includes(403), `one refused: ${statuses}`);
      const owners = (await members(app, s.appId, s.viewer.token))
        .json()
        .members.filter((m: any) => m.role === 'owner');
      assert.equal(owners.length, 1);
    });
  });

  describe(`protected environments on ${dialect}`, () => {
    // Each test makes its own users and apps, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('owners set requiredApprovals (0..5); the record carries the policy; journaled', async () => {
      const { app } = shared();
      const s = await team(app);
      const res = await setPolicy(app, s.owner.token, { appId: s.appId, env: 'production', requiredApprovals: 2 });
      assert.equal(res.statusCode, 200, res.body);
      const prod = s.body.environments.find((e: any) => e.slug === 'prod');
      assert.deepEqual(res.json(), { environment: { ...prod, policy: { requiredApprovals: 2 } } });
      const envs = (await call(app, 'GET', `/api/v1/envs?appId=${s.appId}`, { token: s.viewer.token })).json()
        .environments;
      assert.deepEqual(
        envs.map((e: any) => [e.slug, e.policy.requiredApprovals]),
        [
          ['dev', 0],
          ['staging', 0],
          ['prod', 2],
        ],
      );
      const listed = (await call(app, 'GET', '/api/v1/apps', { token: s.editor.token })).json().apps[0].environments;
      assert.deepEqual(
        listed.map((e: any) => e.policy.requiredApprovals),
        [0, 0, 2],
      );
      assert.equal(
        (await setPolicy(app, s.owner.token, { appId: s.appId, env: 'prod', requiredApprovals: 2 })).statusCode,
        200,
        'the same value again',
      );
      const journal = await journalOf(app, s.owner.token, s.appId, { operation: 'environment.policy' });
      assert.equal(journal.length, 1, 'a no-op is not journaled');
      assert.deepEqual(journal[0].diff, [
        {
          op: 'change',
          resourceType: 'environment',
          key: 'prod',
          path: '/policy/requiredApprovals',
          before: 0,
          after: 2,
        },
      ]);
      for (const requiredApprovals of [-1, 6, 1.5, '1'])
        expectValidation(
          await setPolicy(app, s.owner.token, { appId: s.appId, env: 'prod', requiredApprovals }),
          '/requiredApprovals',
        );
      expectValidation(await setPolicy(app, s.owner.token, { appId: s.appId, env: 'prod' }), '/requiredApprovals');
      expectError(
        await setPolicy(app, s.owner.token, { appId: s.appId, env: 'qa', requiredApprovals: 1 }),
        404,
        'not_found',
      );
      expectError(
        await setPolicy(app, s.admin, { appId: s.appId, env: 'prod', requiredApprovals: 0 }),
        403,
        'forbidden',
      );
      expectError(
        await setPolicy(app, s.outsider.token, { appId: s.appId, env: 'prod', requiredApprovals: 0 }),
        403,
        'forbidden',
      );
      expectError(
        await call(app, 'PATCH', '/api/v1/envs', {
          token: s.sdk.dev!,
          payload: { appId: s.appId, env: 'prod', requiredApprovals: 0 },
        }),
        401,
        'unauthorized',
      );
    });

    test('a protected environment refuses every direct write with 403 approval_required; reads and other environments work', async () => {
      const { app } = shared();
      const s = await team(app);
      const prod = flagsClient(app, s.owner.token, s.appId, 'prod');
      assert.equal((await prod.patch({ key: 'a', type: 'bool', value: false })).statusCode, 200);
      await setPolicy(app, s.owner.token, { appId: s.appId, env: 'prod', requiredApprovals: 1 });
      for (const token of [s.owner.token, s.editor.token, s.admin]) {
        const client = flagsClient(app, token, s.appId, 'production');
        for (const res of [
          await client.patch({ key: 'a', op: 'toggle' }),
          await client.patch({ key: 'a', op: 'toggle', expectedVersion: 0 }),
          await client.patch({ key: 'new', type: 'bool', value: true }),
          await client.remove('a'),
          await client.bulk({ flags: { a: true } }),
          await client.bulk({ flags: { a: true } }, { method: 'POST' }),
        ]) {
          const error = expectError(res, 403, 'approval_required');
          assert.match(error.resolution, /authority\/propose/);
          assert.equal(error.metadata?.requiredApprovals, 1);
        }
        assert.equal((await client.list()).statusCode, 200);
      }
      // A viewer is refused for their role first.
      expectError(
        await flagsClient(app, s.viewer.token, s.appId, 'prod').patch({ key: 'a', op: 'toggle' }),
        403,
        'forbidden',
      );
      const state = (await prod.list()).json();
      assert.equal(state.version, 1);
      assert.equal(state.flags[0].value, false);
      assert.equal(
        (await flagsClient(app, s.editor.token, s.appId, 'dev').patch({ key: 'a', type: 'bool', value: true }))
          .statusCode,
        200,
      );
      await setPolicy(app, s.owner.token, { appId: s.appId, env: 'prod', requiredApprovals: 0 });
      assert.equal((await prod.patch({ key: 'a', op: 'toggle' })).json().version, 2);
    });
  });
}

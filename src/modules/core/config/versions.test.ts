import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { createApp, signUp } from '../../../../test/helpers/fixtures.js';
import { digestOf } from '../../../platform/canonical-json.js';
import { flagsClient } from '../flags/flags.test-client.js';
import { emptyState } from './versions.model.js';

async function setup(t: Parameters<typeof buildTestApp>[0], dialect: (typeof dialects)[number]) {
  const { app } = await buildTestApp(t, { dialect });
  const user = await signUp(app);
  const created = await createApp(app, user.token);
  return { app, user, created, flags: flagsClient(app, user.token, created.appId) };
}

for (const dialect of dialects) {
  describe(`config versions on ${dialect}`, () => {
    test('an untouched environment is version 0 with an empty state', async (t) => {
      const { flags } = await setup(t, dialect);
      const list = await flags.versions();
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(list.json().current, { version: 0, state: emptyState() });
      assert.deepEqual(
        list.json().versions.map((v: any) => [v.version, v.operation, v.changeId, v.authority]),
        [[0, 'environment.create', null, { type: 'system' }]],
      );
      const zero = await flags.versions('/0');
      assert.equal(zero.statusCode, 200);
      assert.deepEqual(zero.json().state, emptyState());
    });

    test('cursor: pages walk every retained version, newest first, and end with nextCursor null', async (t) => {
      const { app, user, created, flags } = await setup(t, dialect);
      for (let i = 0; i < 7; i++) await flags.patch({ key: 'a', type: 'number', value: i });
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await flags.versions('', { limit: 3, ...(cursor ? { cursor } : {}) });
        assert.equal(res.statusCode, 200, res.body);
        seen.push(...res.json().versions.map((v: any) => v.version));
        assert.equal(res.json().current.version, 7);
        cursor = res.json().nextCursor;
        pages++;
      } while (cursor !== null);
      assert.deepEqual(seen, [7, 6, 5, 4, 3, 2, 1, 0]);
      assert.equal(pages, 3);
      const first = (await flags.versions('', { limit: 3 })).json().nextCursor as string;
      // A cursor of another environment, or not a cursor at all, is 400.
      const prod = flagsClient(app, user.token, created.appId, 'prod');
      assert.equal((await prod.versions('', { cursor: first })).statusCode, 400);
      assert.equal((await flags.versions('', { cursor: 'nonsense' })).statusCode, 400);
      assert.equal((await flags.versions('', { cursor: `${first}x` })).statusCode, 400);
    });

    test('list is newest first with limit; each version is the exact snapshot of that moment', async (t) => {
      const { user, flags } = await setup(t, dialect);
      await flags.patch({ key: 'a', type: 'bool', value: false });
      const b = await flags.patch({ key: 'b', type: 'number', value: 1 });
      await flags.patch({ key: 'a', op: 'toggle' });
      const list = (await flags.versions('', { limit: 2 })).json();
      assert.deepEqual(
        list.versions.map((v: any) => [v.version, v.operation]),
        [
          [3, 'flag.toggle'],
          [2, 'flag.create'],
        ],
      );
      assert.deepEqual(list.versions[0].authority, { type: 'user', userId: user.userId });
      assert.equal(list.current.version, 3);
      assert.equal(list.current.state.flags.a.value, true);
      assert.equal((await flags.versions()).json().versions.length, 4, 'default limit 20');

      const two = (await flags.versions('/2')).json();
      assert.equal(two.version, 2);
      assert.equal(two.changeId, b.json().changeId);
      assert.deepEqual(Object.keys(two).sort(), ['changeId', 'createdAt', 'state', 'version']);
      assert.equal(two.state.flags.a.value, false, 'the snapshot, not the current state');
      assert.deepEqual(two.state.flags.b, b.json().flag);
    });

    test('unknown or future versions are 404; bad numbers and limits are 400; credentials and ownership as elsewhere', async (t) => {
      const { app, created, flags } = await setup(t, dialect);
      await flags.patch({ key: 'a', type: 'bool', value: false });
      assert.equal((await flags.versions('/2')).statusCode, 404);
      assert.equal((await flags.versions('/diff', { from: 0, to: 9 })).statusCode, 404);
      for (const bad of ['/-1', '/1.5', '/abc']) assert.equal((await flags.versions(bad)).statusCode, 400, bad);
      for (const limit of [0, 101]) assert.equal((await flags.versions('', { limit })).statusCode, 400);
      assert.equal((await flags.versions('/diff', { from: 0 })).statusCode, 400);
      assert.equal((await flags.versions('', {}, created.sdk.dev!)).statusCode, 401);
      assert.equal((await flags.versions('/1', {}, created.sdk.dev!)).statusCode, 401);
      assert.equal((await flagsClient(app, created.admin, created.appId).versions('/1')).statusCode, 200);
      const other = await signUp(app);
      assert.equal((await flags.versions('', {}, other.token)).statusCode, 403);
      assert.equal((await flags.versions('/diff', { from: 0, to: 1 }, other.token)).statusCode, 403);
      const missing = await app.inject({
        method: 'GET',
        url: '/api/v1/config-versions?appId=app_missing&env=dev',
        headers: { authorization: `Bearer ${other.token}` },
      });
      assert.equal(missing.statusCode, 404);
    });

    test('diff: structured changes, dependencies, visibility and rollback digests; deterministic bytes', async (t) => {
      const { flags } = await setup(t, dialect);
      await flags.patch({ key: 'gate', type: 'bool', value: true });
      await flags.patch({ key: 'old', type: 'string', value: 'x', clientEnabled: true });
      await flags.patch({ key: 'ui', type: 'string', value: 'a', overrides: { 'user-1': 'b' } });
      const from = (await flags.list()).json().version;
      await flags.patch({
        key: 'ui',
        value: 'c',
        clientEnabled: true,
        dependencies: [{ flag: 'gate', value: true }],
        overrides: { 'user-2': 'b' },
      });
      await flags.remove('old');
      await flags.bulk({ advanced: { ttlSeconds: 15 } });
      const to = (await flags.list()).json().version;

      const res = await flags.versions('/diff', { from, to });
      assert.equal(res.statusCode, 200, res.body);
      const diff = res.json();
      assert.equal(diff.from, from);
      assert.equal(diff.to, to);
      assert.deepEqual(
        diff.changes.map((c: any) => [c.op, c.resourceType, c.key, c.path]),
        [
          ['remove', 'flag', 'old', ''],
          ['change', 'flag', 'ui', '/clientEnabled'],
          ['change', 'flag', 'ui', '/dependencies'],
          ['remove', 'flag', 'ui', '/overrides/user-1'],
          ['add', 'flag', 'ui', '/overrides/user-2'],
          ['change', 'flag', 'ui', '/value'],
          ['change', 'settings', 'ttlSeconds', ''],
        ],
      );
      assert.deepEqual(diff.changes.at(-1), {
        op: 'change',
        resourceType: 'settings',
        key: 'ttlSeconds',
        path: '',
        before: 60,
        after: 15,
      });
      assert.deepEqual(diff.dependencies, [{ key: 'ui', before: [], after: [{ flag: 'gate', value: true }] }]);
      assert.deepEqual(diff.visibility, [
        { key: 'old', before: true, after: false },
        { key: 'ui', before: false, after: true },
      ]);
      const fromState = (await flags.versions(`/${from}`)).json().state;
      const toState = (await flags.versions(`/${to}`)).json().state;
      assert.deepEqual(diff.rollback, { fromState: digestOf(fromState), toState: digestOf(toState) });

      assert.equal((await flags.versions('/diff', { from, to })).body, res.body, 'same inputs, same bytes');
      const reverse = (await flags.versions('/diff', { from: to, to: from })).json();
      assert.deepEqual(reverse.rollback, { fromState: diff.rollback.toState, toState: diff.rollback.fromState });
      assert.deepEqual(
        reverse.changes.map((c: any) => c.op),
        ['add', 'change', 'change', 'add', 'remove', 'change', 'change'],
      );
      const none = (await flags.versions('/diff', { from: to, to })).json();
      assert.deepEqual([none.changes, none.dependencies, none.visibility], [[], [], []]);
    });
  });
}

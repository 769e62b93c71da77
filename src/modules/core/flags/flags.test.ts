import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { bearer, createApp, createKey, signUp, uniqueKey } from '../../../../test/helpers/fixtures.js';
import { keyedHash } from '../../../platform/secret-box.js';
import { flagsClient, journalOf } from './flags.test-client.js';

const SECRET = 'test-secret-test-secret-test-secret-0123';

async function setup(
  t: Parameters<typeof buildTestApp>[0],
  dialect: (typeof dialects)[number],
  config?: Parameters<typeof buildTestApp>[1]['config'],
) {
  const { app } = await buildTestApp(t, { dialect, config });
  const user = await signUp(app);
  const created = await createApp(app, user.token);
  return { app, user, created, flags: flagsClient(app, user.token, created.appId) };
}

for (const dialect of dialects) {
  describe(`flags on ${dialect}`, () => {
    test('create, list sorted by key, update, toggle, delete: each a new version with a change id', async (t) => {
      const { flags } = await setup(t, dialect);
      const empty = await flags.list();
      assert.equal(empty.statusCode, 200);
      assert.deepEqual(empty.json(), { flags: [], version: 0 });

      const b = await flags.patch({ key: 'beta', type: 'bool', value: false });
      assert.equal(b.statusCode, 200, b.body);
      assert.equal(b.json().version, 1);
      assert.match(b.json().changeId, /^chg_/);
      assert.deepEqual(Object.keys(b.json().flag).sort(), [
        'clientEnabled',
        'createdAt',
        'dependencies',
        'description',
        'enabled',
        'key',
        'metadata',
        'offValue',
        'overrides',
        'rollout',
        'rules',
        'type',
        'updatedAt',
        'value',
        'variants',
      ]);
      assert.deepEqual(
        { ...b.json().flag, createdAt: undefined, updatedAt: undefined },
        {
          key: 'beta',
          type: 'bool',
          value: false,
          enabled: true,
          offValue: false,
          clientEnabled: false,
          description: '',
          rollout: null,
          variants: null,
          rules: [],
          overrides: {},
          dependencies: [],
          metadata: {},
          createdAt: undefined,
          updatedAt: undefined,
        },
      );
      const a = await flags.patch({ key: 'alpha', op: 'create', type: 'string', value: 'x', description: 'first' });
      assert.equal(a.json().version, 2);

      const list = await flags.list();
      assert.deepEqual(
        list.json().flags.map((f: any) => f.key),
        ['alpha', 'beta'],
      );
      assert.equal(list.json().version, 2);

      const updated = await flags.patch({ key: 'alpha', op: 'update', value: 'y' });
      assert.equal(updated.json().version, 3);
      assert.equal(updated.json().flag.value, 'y');
      assert.equal(updated.json().flag.description, 'first', 'fields not given stay');
      assert.equal(updated.json().flag.createdAt, a.json().flag.createdAt);

      const toggled = await flags.patch({ key: 'beta', op: 'toggle' });
      assert.equal(toggled.json().flag.value, true);
      assert.equal(toggled.json().version, 4);

      const deleted = await flags.remove('beta');
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.equal(deleted.json().version, 5);
      assert.match(deleted.json().changeId, /^chg_/);
      assert.deepEqual(
        (await flags.list()).json().flags.map((f: any) => f.key),
        ['alpha'],
      );
    });

    test('op semantics: create of an existing key is 409, update/toggle/delete of a missing one 404, toggle of a non-bool 400', async (t) => {
      const { flags } = await setup(t, dialect);
      await flags.patch({ key: 'f', type: 'string', value: 'a' });
      const exists = await flags.patch({ key: 'f', op: 'create', type: 'string', value: 'b' });
      assert.equal(exists.statusCode, 409);
      assert.equal(exists.json().error.code, 'flag_exists');
      for (const op of ['update', 'toggle']) {
        const missing = await flags.patch({ key: 'nope', op });
        assert.equal(missing.statusCode, 404, op);
        assert.equal(missing.json().error.code, 'not_found');
      }
      assert.equal((await flags.remove('nope')).statusCode, 404);
      const toggle = await flags.patch({ key: 'f', op: 'toggle' });
      assert.equal(toggle.statusCode, 400);
      assert.equal(toggle.json().error.details[0].path, '/op');
      const toggleWithFields = await flags.patch({ key: 'f', op: 'toggle', description: 'x' });
      assert.equal(toggleWithFields.statusCode, 400);
    });

    test('a new flag needs type and value; a type change needs a value of the new type', async (t) => {
      const { flags } = await setup(t, dialect);
      const bare = await flags.patch({ key: 'f' });
      assert.equal(bare.statusCode, 400);
      assert.deepEqual(
        bare
          .json()
          .error.details.map((d: any) => d.path)
          .sort(),
        ['/type', '/value'],
      );
      const noValue = await flags.patch({ key: 'f', op: 'create', type: 'bool' });
      assert.deepEqual(
        noValue.json().error.details.map((d: any) => d.path),
        ['/value'],
      );

      await flags.patch({ key: 'f', type: 'bool', value: true });
      const typeOnly = await flags.patch({ key: 'f', type: 'string' });
      assert.equal(typeOnly.statusCode, 400);
      assert.equal(typeOnly.json().error.details[0].path, '/value');
      assert.match(typeOnly.json().error.details[0].message, /changing the type from bool to string/);
      const wrongValue = await flags.patch({ key: 'f', type: 'number', value: 'x' });
      assert.equal(wrongValue.statusCode, 400);
      const changed = await flags.patch({ key: 'f', type: 'number', value: 3 });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(changed.json().flag.type, 'number');
    });

    test('expectedVersion: a match applies, a mismatch is 409 version_conflict with the current version', async (t) => {
      const { flags } = await setup(t, dialect);
      assert.equal((await flags.patch({ key: 'f', type: 'bool', value: true, expectedVersion: 0 })).statusCode, 200);
      const stale = await flags.patch({ key: 'f', value: false, expectedVersion: 0 });
      assert.equal(stale.statusCode, 409);
      assert.equal(stale.json().error.code, 'version_conflict');
      assert.deepEqual(stale.json().error.metadata, { currentVersion: 1 });
      assert.equal((await flags.patch({ key: 'f', value: false, expectedVersion: 1 })).json().version, 2);
      const staleDelete = await flags.remove('f', { expectedVersion: 1 });
      assert.equal(staleDelete.statusCode, 409);
      assert.equal((await flags.remove('f', { expectedVersion: 2 })).statusCode, 200);
    });

    test('a no-op answers 200 with the unchanged version, changeId null and no new version or journal entry', async (t) => {
      const { app, user, created, flags } = await setup(t, dialect);
      const first = await flags.patch({ key: 'f', type: 'bool', value: true, description: 'd' });
      for (const body of [
        { key: 'f', value: true },
        { key: 'f', op: 'update' },
        { key: 'f', type: 'bool', value: true, description: 'd' },
      ]) {
        const again = await flags.patch(body);
        assert.equal(again.statusCode, 200, again.body);
        assert.equal(again.json().version, 1);
        assert.equal(again.json().changeId, null);
        assert.deepEqual(again.json().flag, first.json().flag, 'updatedAt does not move');
      }
      assert.equal((await flags.versions()).json().versions.length, 2, 'versions 0 and 1');
      assert.equal((await journalOf(app, user.token, created.appId, { resourceType: 'flag' })).length, 1);
    });

    test('flag quota of the owner plan: at the limit 200, past it 429 flag_quota_exceeded; updates still pass', async (t) => {
      const quota = { configSyncs: 1000, apps: 10, flags: 3 };
      const { flags } = await setup(t, dialect, { quotas: { free: quota, pro: { ...quota, flags: 100 } } });
      for (const key of ['a', 'b', 'c'])
        assert.equal((await flags.patch({ key, type: 'bool', value: true })).statusCode, 200);
      const past = await flags.patch({ key: 'd', type: 'bool', value: true });
      assert.equal(past.statusCode, 429);
      assert.equal(past.json().error.code, 'flag_quota_exceeded');
      assert.deepEqual(past.json().error.metadata, { limit: 3 });
      assert.equal((await flags.patch({ key: 'a', value: false })).statusCode, 200);
      await flags.remove('c');
      assert.equal((await flags.patch({ key: 'd', type: 'bool', value: true })).statusCode, 200);
    });

    test('credentials: cli_ and the app admin_ key pass; sdk_ and pub_ are 401; another user is 403; an unknown app or env 404', async (t) => {
      const { app, user, created, flags } = await setup(t, dialect);
      const admin = flagsClient(app, created.admin, created.appId);
      assert.equal((await admin.patch({ key: 'f', type: 'bool', value: true })).statusCode, 200);
      assert.equal((await admin.list()).statusCode, 200);
      const pub = await createKey(app, user.token, { appId: created.appId, env: 'dev', type: 'pub' });
      for (const token of [created.sdk.dev!, pub.token]) {
        assert.equal((await flags.list(token)).statusCode, 401);
        assert.equal((await flags.patch({ key: 'g', type: 'bool', value: true }, token)).statusCode, 401);
        assert.equal((await flags.remove('f', {}, token)).statusCode, 401);
        assert.equal((await flags.bulk({ flags: { f: false } }, { token })).statusCode, 401);
      }
      assert.equal(
        (await app.inject({ method: 'GET', url: `/api/v1/flags?appId=${created.appId}&env=dev` })).statusCode,
        401,
      );

      const other = await signUp(app);
      const otherApp = await createApp(app, other.token);
      assert.equal((await flags.list(other.token)).statusCode, 403);
      assert.equal((await flags.patch({ key: 'f', value: false }, other.token)).statusCode, 403);
      assert.equal((await flags.remove('f', {}, other.token)).statusCode, 403);
      assert.equal((await flags.list(otherApp.admin)).statusCode, 403, "another app's admin key");

      const unknownApp = flagsClient(app, user.token, 'app_doesnotexist');
      assert.equal((await unknownApp.list()).statusCode, 404);
      assert.equal((await unknownApp.patch({ key: 'f', type: 'bool', value: true })).statusCode, 404);
      const unknownEnv = flagsClient(app, user.token, created.appId, 'qa');
      assert.equal((await unknownEnv.patch({ key: 'f', type: 'bool', value: true })).statusCode, 404);
      // The older environment slugs are aliases.
      const production = flagsClient(app, user.token, created.appId, 'production');
      assert.equal((await production.patch({ key: 'p', type: 'bool', value: true })).statusCode, 200);
      assert.deepEqual(
        (await flagsClient(app, user.token, created.appId, 'prod').list()).json().flags.map((f: any) => f.key),
        ['p'],
      );
    });

    test('an Idempotency-Key makes a retried toggle or delete replay its first answer instead of applying twice', async (t) => {
      const { app, user, created, flags } = await setup(t, dialect);
      await flags.patch({ key: 'f', type: 'bool', value: false });
      const key = uniqueKey();
      const toggle = () =>
        app.inject({
          method: 'PATCH',
          url: '/api/v1/flags',
          headers: { ...bearer(user.token), 'idempotency-key': key },
          payload: { appId: created.appId, env: 'dev', key: 'f', op: 'toggle' },
        });
      const first = await toggle();
      const retry = await toggle();
      assert.equal(retry.statusCode, 200);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.body, first.body);
      assert.equal((await flags.list()).json().flags[0].value, true, 'flipped once');
      const other = await app.inject({
        method: 'PATCH',
        url: '/api/v1/flags',
        headers: { ...bearer(user.token), 'idempotency-key': key },
        payload: { appId: created.appId, env: 'dev', key: 'f', value: false },
      });
      assert.equal(other.statusCode, 409);
      assert.equal(other.json().error.code, 'idempotency_conflict');
      const deleteKey = uniqueKey();
      const remove = () =>
        app.inject({
          method: 'DELETE',
          url: `/api/v1/flags?appId=${created.appId}&env=dev&key=f`,
          headers: { ...bearer(user.token), 'idempotency-key': deleteKey },
        });
      assert.equal((await remove()).statusCode, 200);
      assert.equal((await remove()).json().version, 3, 'the retried delete replays instead of answering 404');
    });

    test('bad query and body shapes are 400', async (t) => {
      const { app, user, created, flags } = await setup(t, dialect);
      assert.equal(
        (await app.inject({ method: 'GET', url: `/api/v1/flags?appId=${created.appId}`, headers: bearer(user.token) }))
          .statusCode,
        400,
      );
      assert.equal(
        (
          await app.inject({
            method: 'GET',
            url: `/api/v1/flags?appId=${'a'.repeat(129)}&env=dev`,
            headers: bearer(user.token),
          })
        ).statusCode,
        400,
      );
      assert.equal(
        (
          await app.inject({
            method: 'DELETE',
            url: `/api/v1/flags?appId=${created.appId}&env=dev`,
            headers: bearer(user.token),
          })
        ).statusCode,
        400,
      );
      const extra = await flags.patch({ key: 'f', type: 'bool', value: true, colour: 'red' });
      assert.equal(extra.statusCode, 400);
      assert.equal(extra.json().error.details[0].path, '/colour');
      assert.equal((await flags.patch({ key: 'f', type: 'bool', value: true, op: 'replace' })).statusCode, 400);
      assert.equal((await flags.patch({ key: 'f', type: 'bool', value: true, expectedVersion: -1 })).statusCode, 400);
    });

    test('journal: one entry per change with versions, a structured diff and hashed override subjects', async (t) => {
      const { app, user, created, flags } = await setup(t, dialect);
      await flags.patch({ key: 'f', type: 'bool', value: false, overrides: { 'user-42': true } });
      await flags.patch({ key: 'f', overrides: { 'user-42': false, 'user-7': true } });
      await app.inject({
        method: 'PATCH',
        url: '/api/v1/flags',
        headers: { ...bearer(user.token), 'x-ensign-source': 'cli' },
        payload: { appId: created.appId, env: 'dev', key: 'f', op: 'toggle' },
      });
      await flags.remove('f');
      const entries = (await journalOf(app, user.token, created.appId, { resourceType: 'flag' })).reverse();
      assert.deepEqual(
        entries.map((e) => e.operation),
        ['flag.create', 'flag.update', 'flag.toggle', 'flag.delete'],
      );
      assert.deepEqual(
        entries.map((e) => [e.beforeVersion, e.afterVersion]),
        [
          [0, 1],
          [1, 2],
          [2, 3],
          [3, 4],
        ],
      );
      assert.deepEqual(
        entries.map((e) => e.source),
        ['api', 'api', 'cli', 'api'],
      );
      for (const e of entries) {
        assert.equal(e.resourceId, 'f');
        assert.equal(e.env, 'dev');
        assert.deepEqual(e.authority, { type: 'user', userId: user.userId });
      }
      const hash = (s: string) => keyedHash(SECRET, 'journal-subject', s);
      assert.deepEqual(entries[0].diff[0].after.overrides, { [hash('user-42')]: true });
      assert.deepEqual(
        entries[1].diff,
        [
          {
            op: 'change',
            resourceType: 'flag',
            key: 'f',
            path: `/overrides/${hash('user-42')}`,
            before: true,
            after: false,
          },
          { op: 'add', resourceType: 'flag', key: 'f', path: `/overrides/${hash('user-7')}`, after: true },
        ].sort((x, y) => (x.path < y.path ? -1 : 1)),
      );
      assert.deepEqual(entries[2].diff, [
        { op: 'change', resourceType: 'flag', key: 'f', path: '/value', before: false, after: true },
      ]);
      assert.equal(entries[3].diff[0].op, 'remove');
      const text = JSON.stringify(entries);
      assert.ok(!text.includes('user-42') && !text.includes('user-7'), 'no subject key in the journal');

      const versions = (await flags.versions()).json().versions;
      assert.deepEqual(
        versions.map((v: any) => v.changeId),
        [...entries.map((e) => e.id)].reverse().concat(null),
      );
    });
  });
}

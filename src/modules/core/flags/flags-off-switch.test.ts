// The off switch as a flag field: defaults, validation, PATCH and bulk apply, versions, journal and
// diffs, and snapshots written before the fields existed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { createApp, signUp } from '../../../../test/helpers/fixtures.js';
import { createChangeNotifier } from '../../../db/notifications.js';
import { inTransaction } from '../../../db/transaction.js';
import { createConfigStateStore } from '../config/index.js';
import { flagsClient, journalOf } from './flags.test-client.js';

for (const dialect of dialects) {
  describe(`flag off switch on ${dialect}`, () => {
    test('a new flag is enabled with its value as off value; enabled and offValue are patchable, each change a version and a journal entry', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const created = await createApp(app, user.token);
      const flags = flagsClient(app, user.token, created.appId);

      const made = await flags.patch({ key: 'f', type: 'string', value: 'on' });
      assert.equal(made.statusCode, 200, made.body);
      assert.equal(made.json().flag.enabled, true);
      assert.equal(made.json().flag.offValue, 'on');

      const disabled = await flags.patch({ key: 'f', enabled: false });
      assert.equal(disabled.statusCode, 200, disabled.body);
      assert.equal(disabled.json().version, 2);
      assert.match(disabled.json().changeId, /^chg_/);
      assert.deepEqual([disabled.json().flag.enabled, disabled.json().flag.offValue], [false, 'on']);

      const offValue = await flags.patch({ key: 'f', offValue: 'off' });
      assert.equal(offValue.json().version, 3);
      // The value moves on its own: the off value stays what it was set to.
      const value = await flags.patch({ key: 'f', value: 'newer' });
      assert.deepEqual([value.json().flag.value, value.json().flag.offValue], ['newer', 'off']);
      const again = await flags.patch({ key: 'f', enabled: false });
      assert.equal(again.json().changeId, null, 'disabling a disabled flag is a no-op');
      const enabled = await flags.patch({ key: 'f', enabled: true });
      assert.equal(enabled.json().version, 5);

      const entries = (await journalOf(app, user.token, created.appId, { resourceType: 'flag' })).reverse();
      assert.deepEqual(
        entries.map((e) => e.operation),
        ['flag.create', 'flag.update', 'flag.update', 'flag.update', 'flag.update'],
      );
      assert.deepEqual(entries[1].diff, [
        { op: 'change', resourceType: 'flag', key: 'f', path: '/enabled', before: true, after: false },
      ]);
      assert.deepEqual(entries[2].diff, [
        { op: 'change', resourceType: 'flag', key: 'f', path: '/offValue', before: 'on', after: 'off' },
      ]);

      const diff = await flags.versions('/diff', { from: 1, to: 2 });
      assert.deepEqual(diff.json().changes, [
        { op: 'change', resourceType: 'flag', key: 'f', path: '/enabled', before: true, after: false },
      ]);
      const snapshot = await flags.versions('/2');
      assert.deepEqual([snapshot.json().state.flags.f.enabled, snapshot.json().state.flags.f.offValue], [false, 'on']);
      const list = (await flags.list()).json().flags;
      assert.deepEqual([list[0].enabled, list[0].offValue], [true, 'off']);
    });

    test('offValue must be of the flag type, enabled a boolean; a type change without offValue resets it to the new value', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const flags = flagsClient(app, user.token, (await createApp(app, user.token)).appId);
      const wrong = await flags.patch({ key: 'f', type: 'bool', value: true, offValue: 'no' });
      assert.equal(wrong.statusCode, 400);
      assert.deepEqual(
        wrong.json().error.details.map((d: { path: string }) => d.path),
        ['/offValue'],
      );
      assert.equal((await flags.patch({ key: 'f', type: 'bool', value: true, enabled: 'no' })).statusCode, 400);
      assert.equal((await flags.list()).json().flags.length, 0, 'nothing written');

      await flags.patch({ key: 'f', type: 'bool', value: true, enabled: false, offValue: false });
      const retyped = await flags.patch({ key: 'f', type: 'string', value: 'x' });
      assert.equal(retyped.statusCode, 200, retyped.body);
      assert.deepEqual([retyped.json().flag.offValue, retyped.json().flag.enabled], ['x', false]);
      const retypedWithOff = await flags.patch({ key: 'f', type: 'number', value: 1, offValue: 0 });
      assert.equal(retypedWithOff.json().flag.offValue, 0);
      const badRetype = await flags.patch({ key: 'f', type: 'bool', value: true, offValue: 3 });
      assert.equal(badRetype.statusCode, 400);
    });

    test('toggle keeps flipping the value, also of a disabled flag; bulk apply sets enabled and offValue', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const flags = flagsClient(app, user.token, (await createApp(app, user.token)).appId);
      await flags.patch({ key: 'a', type: 'bool', value: false, enabled: false });
      await flags.patch({ key: 'b', type: 'number', value: 1 });
      const toggled = await flags.patch({ key: 'a', op: 'toggle' });
      assert.deepEqual(
        [toggled.json().flag.value, toggled.json().flag.enabled, toggled.json().flag.offValue],
        [true, false, false],
      );

      const applied = await flags.bulk({
        advanced: { flags: { a: { enabled: true }, b: { enabled: false, offValue: 0 } } },
      });
      assert.equal(applied.statusCode, 200, applied.body);
      assert.deepEqual(applied.json().updated, ['a', 'b']);
      const list = Object.fromEntries((await flags.list()).json().flags.map((f: { key: string }) => [f.key, f]));
      assert.deepEqual([list.a.enabled, list.b.enabled, list.b.offValue], [true, false, 0]);
      const bad = await flags.bulk({ advanced: { flags: { b: { offValue: 'zero' } } } });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error.details[0].path, '/advanced/flags/b/offValue');
    });

    test('snapshots written before the fields existed read as enabled, with the value as off value', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const user = await signUp(test.app);
      const created = await createApp(test.app, user.token);
      const flags = flagsClient(test.app, user.token, created.appId);
      await flags.patch({ key: 'old', type: 'string', value: 'v' });
      const envId = created.body.environments.find((e: { slug: string }) => e.slug === 'dev').id;
      const target = { appId: created.appId, envId, env: 'dev' };
      // Write version 2 as an older server did: a flag record without enabled and offValue.
      // As the shared fixtures do (storeInvalidConfig): the notifier is closed before the test goes on.
      const notifier = createChangeNotifier(test.database.handle, test.database.pgSchema);
      try {
        const store = createConfigStateStore(test.database.handle.db, notifier);
        await inTransaction(test.database.handle.db, async (trx) => {
          const locked = await store.lock(trx, target);
          const state = structuredClone(locked.state);
          const { enabled: _e, offValue: _o, ...old } = state.flags.old!;
          state.flags.old = old as typeof state.flags.old;
          await store.commit(trx, target, locked, {
            state,
            changeId: null,
            operation: 'test.legacy',
            authority: { type: 'system' },
          });
        });
      } finally {
        await notifier.close();
      }

      const list = (await flags.list()).json();
      assert.equal(list.version, 2);
      assert.deepEqual([list.flags[0].enabled, list.flags[0].offValue], [true, 'v']);
      assert.deepEqual((await flags.versions('/diff', { from: 1, to: 2 })).json().changes, [], 'no phantom change');
      const disabled = await flags.patch({ key: 'old', enabled: false });
      assert.deepEqual(disabled.json().flag.offValue, 'v');
      assert.equal(disabled.json().version, 3);
    });
  });
}

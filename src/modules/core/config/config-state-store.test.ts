// A listener that throws on a configuration change is reported, never swallowed, and does not keep
// the other listeners from hearing the change. No database: the notifier is an in-memory one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { ChangeNotifier } from '../../../db/notifications.js';
import { createConfigStateStore, type ConfigChange } from './config-state-store.js';

function memoryNotifier() {
  const listeners = new Set<(payload: string) => void>();
  const notifier: ChangeNotifier = {
    publish: async () => undefined,
    subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    close: async () => undefined,
  };
  return { notifier, emit: (payload: string) => listeners.forEach((l) => l(payload)) };
}

test('a throwing listener is reported with the change; the others still hear it; a malformed payload is skipped', () => {
  const { notifier, emit } = memoryNotifier();
  const failures: { error: unknown; change: ConfigChange }[] = [];
  const store = createConfigStateStore({} as Kysely<Database>, notifier, (error, change) =>
    failures.push({ error, change }),
  );
  const heard: ConfigChange[] = [];
  store.onChange(() => {
    throw new Error('listener defect');
  });
  store.onChange((change) => heard.push(change));
  const change = { envId: 'env_1', appId: 'app_1', version: 3 };
  emit(JSON.stringify(change));
  emit('{not json');
  assert.deepEqual(heard, [change]);
  assert.equal(failures.length, 1);
  assert.equal((failures[0]!.error as Error).message, 'listener defect');
  assert.deepEqual(failures[0]!.change, change);
});

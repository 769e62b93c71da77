// The evaluation source on its own, over a fake snapshot provider: one compiled set per snapshot
// (per config version), never per request; and `atLeast` waiting for this process to hear of a
// version another process announced.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { withFlagDefaults } from '@ensign/engine';
import type { Snapshot } from '../config-delivery/index.js';
import { emptyState, type ConfigState, type EnvironmentTarget } from '../../core/config/index.js';
import { createEvaluationSource, type SnapshotProvider } from './evaluation-source.js';

const target: EnvironmentTarget = { appId: 'app_1', envId: 'env_1', env: 'prod' };

function stateWith(value: boolean): ConfigState {
  const state = emptyState();
  const at = '2026-01-01T00:00:00.000Z';
  state.flags.f = { ...withFlagDefaults({ key: 'f', type: 'bool', value }), createdAt: at, updatedAt: at };
  return state;
}

function fakeProvider() {
  let current = { version: 1, state: stateWith(false) } as unknown as Snapshot;
  const listeners = new Set<(envId: string, version: number) => void>();
  const provider: SnapshotProvider = {
    snapshot: () => current,
    onAnnounce(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    provider,
    /** A new version: a new snapshot object, announced to listeners. */
    publish(version: number, value: boolean) {
      current = { version, state: stateWith(value) } as unknown as Snapshot;
      for (const listener of listeners) listener(target.envId, version);
    },
    listeners: () => listeners.size,
  };
}

describe('evaluation source', () => {
  test('compiles a set once per snapshot and again only for a new one', () => {
    const fake = fakeProvider();
    const source = createEvaluationSource(fake.provider);
    const first = source.current(target);
    assert.ok(!(first instanceof Promise));
    assert.equal(source.current(target), first, 'the same set for every request of a version');
    assert.equal(first.flags!.evaluate('f').value, false);
    fake.publish(2, true);
    const second = source.current(target);
    assert.ok(!(second instanceof Promise));
    assert.notEqual(second, first);
    assert.equal(second.version, 2);
    assert.equal(second.flags!.evaluate('f').value, true);
  });

  test('atLeast waits for the announcement of a newer version, then answers from it', async () => {
    const fake = fakeProvider();
    const source = createEvaluationSource(fake.provider);
    const pending = source.current(target, 2);
    assert.ok(pending instanceof Promise);
    setTimeout(() => fake.publish(2, true), 20);
    const set = await pending;
    assert.equal(set.version, 2);
    assert.equal(fake.listeners(), 0, 'the waiter stops listening');
    assert.equal((await source.current(target, 2)).version, 2, 'no wait when the version is there');
  });

  test('atLeast gives up after a while and answers with what there is', async () => {
    const fake = fakeProvider();
    const source = createEvaluationSource(fake.provider);
    const started = Date.now();
    const set = await source.current(target, 9);
    assert.equal(set.version, 1);
    assert.ok(Date.now() - started >= 1400, 'waited for the notification window');
    assert.equal(fake.listeners(), 0);
  });
});

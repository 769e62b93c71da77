// The LISTEN connection's life against a pool that misbehaves on purpose: a connection that reports
// its loss twice, a close while LISTEN is still in flight. Each left a connection checked out for
// good before, so the pool's end (and the process's exit) waited forever.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { DbHandle } from './create-db.js';
import { createChangeNotifier } from './notifications.js';

/** A pool client whose queries answer only when the test says so. */
class FakeClient extends EventEmitter {
  released: (boolean | undefined)[] = [];
  pending: { text: string; resolve: () => void; reject: (err: Error) => void }[] = [];
  query(text: string) {
    return new Promise<void>((resolve, reject) => this.pending.push({ text, resolve, reject }));
  }
  release(destroy?: boolean) {
    if (this.released.length > 0)
      throw new Error('Release called on client which has already been released to the pool.');
    this.released.push(destroy);
  }
}

function fakePool() {
  const clients: FakeClient[] = [];
  const pool = {
    async connect() {
      const client = new FakeClient();
      clients.push(client);
      return client as unknown as pg.PoolClient;
    },
  };
  const handle = { dialect: 'postgres', pgPool: pool } as unknown as DbHandle;
  const checkedOut = () => clients.filter((c) => c.released.length === 0);
  return { handle, clients, checkedOut };
}

const until = async (what: string, check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check(), `timed out waiting until ${what}`);
};

describe('change notifier LISTEN connection', () => {
  test('a close while LISTEN is in flight returns at once and gives the connection back destroyed', async () => {
    const { handle, clients, checkedOut } = fakePool();
    const notifier = createChangeNotifier(handle, 'a');
    await until('LISTEN is sent', () => clients[0]?.pending.length === 1);
    await notifier.close();
    assert.deepEqual(clients[0].released, [true]);
    assert.equal(clients[0].pending.length, 1, 'no UNLISTEN queued behind the LISTEN');
    // The LISTEN failing afterwards (the destroyed connection) neither throws nor reconnects.
    clients[0].pending[0].reject(new Error('Connection terminated'));
    clients[0].emit('error', new Error('Connection terminated'));
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(clients.length, 1);
    assert.equal(checkedOut().length, 0);
  });

  test('a connection that reports its loss twice is replaced by one connection, not two', async () => {
    const { handle, clients, checkedOut } = fakePool();
    const notifier = createChangeNotifier(handle, 'b');
    await until('LISTEN is sent', () => clients[0]?.pending.length === 1);
    clients[0].pending[0].resolve();
    // The lost query and the 'error' event, more than a retry's delay apart.
    clients[0].emit('error', new Error('terminating connection due to administrator command'));
    await until('a second connection LISTENs', () => clients[1]?.pending.length === 1);
    clients[1].pending[0].resolve();
    clients[0].emit('error', new Error('Connection terminated unexpectedly'));
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(clients.length, 2, 'the late second report starts no further connection');
    assert.deepEqual(
      checkedOut().map((c) => clients.indexOf(c)),
      [1],
    );
    await notifier.close();
    assert.equal(checkedOut().length, 0);
  });

  test('a LISTEN that fails is retried on a new connection, the failed one given back once', async () => {
    const { handle, clients, checkedOut } = fakePool();
    const notifier = createChangeNotifier(handle, 'c');
    await until('LISTEN is sent', () => clients[0]?.pending.length === 1);
    clients[0].emit('error', new Error('Connection terminated unexpectedly'));
    clients[0].pending[0].reject(new Error('Connection terminated unexpectedly'));
    await until('a second connection LISTENs', () => clients[1]?.pending.length === 1);
    assert.deepEqual(clients[0].released, [true]);
    const reconnected = new Promise<void>((resolve) => {
      // 'reconnected' is internal; a change after the LISTEN proves the new connection is heard.
      notifier.subscribe((payload) => payload === 'after' && resolve());
    });
    clients[1].pending[0].resolve();
    await new Promise((resolve) => setImmediate(resolve));
    clients[1].emit('notification', { channel: 'ensign_config_c', payload: 'after' });
    await reconnected;
    await notifier.close();
    assert.equal(checkedOut().length, 0);
    assert.equal(clients.length, 2);
  });
});

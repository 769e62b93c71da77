// The pool's connection timeouts are forgiven across the process's own stalls, and only then: a fake
// clock moves time, a fake pool times out as node-postgres does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PostgresPoolClient } from 'kysely';
import { createStallWatch, stallTolerant } from './stall-tolerant-pool.js';

const client = { release() {} } as unknown as PostgresPoolClient;

function fakePool(clock: { t: number }, outcomes: (() => Error | null)[], advanceMs: number) {
  let calls = 0;
  return {
    calls: () => calls,
    async connect() {
      const outcome = outcomes[calls++]!();
      clock.t += advanceMs;
      if (outcome) throw outcome;
      return client;
    },
    end: async () => undefined,
  };
}

const acquireTimeout = () => new Error('timeout exceeded when trying to connect');
const connectTimeout = () => new Error('Connection terminated due to connection timeout');

test('a timeout that ran out while the process stood still is tried again', async () => {
  const clock = { t: 0 };
  const watch = createStallWatch(() => clock.t);
  // The process stands still for 6 s during the wait: no tick between 0 and 6,000.
  const pool = fakePool(clock, [connectTimeout, () => null], 6000);
  assert.equal(await stallTolerant(pool, watch).connect(), client);
  assert.equal(pool.calls(), 2);
});

test('the stall is seen whether the watch ticked after waking or not yet', async () => {
  const clock = { t: 0 };
  const watch = createStallWatch(() => clock.t);
  const pool = {
    calls: 0,
    async connect() {
      if (this.calls++ > 0) return client;
      clock.t += 6000;
      watch.tick(); // the tick ran first on waking: it records the stall
      clock.t += 10;
      throw acquireTimeout();
    },
    end: async () => undefined,
  };
  assert.equal(await stallTolerant(pool, watch).connect(), client);
  assert.equal(pool.calls, 2);
});

test('a timeout while the process ran is reported at once, and retries after stalls are bounded', async () => {
  const clock = { t: 0 };
  const watch = createStallWatch(() => clock.t);
  const running = {
    async connect(): Promise<PostgresPoolClient> {
      // 5 s of waiting with the watch ticking every 250 ms: the process ran.
      for (let i = 0; i < 20; i++) {
        clock.t += 250;
        watch.tick();
      }
      throw acquireTimeout();
    },
    end: async () => undefined,
  };
  await assert.rejects(stallTolerant(running, watch).connect(), /timeout exceeded/);

  const stalled = fakePool(clock, [connectTimeout, connectTimeout, connectTimeout, () => null], 6000);
  await assert.rejects(stallTolerant(stalled, watch).connect(), /connection timeout/);
  assert.equal(stalled.calls(), 3, 'the first try and two more');
});

test('other errors are never retried', async () => {
  const clock = { t: 0 };
  const watch = createStallWatch(() => clock.t);
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const pool = fakePool(clock, [() => refused, () => null], 6000);
  await assert.rejects(stallTolerant(pool, watch).connect(), /ECONNREFUSED/);
  assert.equal(pool.calls(), 1);
});

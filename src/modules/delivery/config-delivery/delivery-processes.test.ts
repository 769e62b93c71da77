// Two server processes on one database: a change or a revocation made through one is served by the
// other within a second, by notification (PostgreSQL LISTEN/NOTIFY) or by polling alone.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../app.js';
import {
  buildTestApp,
  dialects,
  testConfig,
  type TestContext,
  type TestDatabase,
} from '../../../../test/helpers/test-app.js';
import { bearer } from '../../../../test/helpers/fixtures.js';
import {
  environmentFixture,
  getConfig,
  putFlags,
  waitForVersionAbove,
} from '../../../../test/helpers/delivery-fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

/**
 * A second process on the same database; `channel` other than the first's means it hears no
 * notifications; `polling: false` means it learns changes from notifications alone.
 */
async function secondProcess(
  t: TestContext,
  database: TestDatabase,
  channel: string | undefined,
  polling = true,
): Promise<FastifyInstance> {
  const handle = database.open();
  const app = await buildApp({
    db: handle.db,
    dbHandle: handle,
    notifyChannel: channel,
    config: testConfig(),
    ...(polling ? {} : { configPollIntervalMs: null }),
  });
  t.after(async () => {
    await app.close();
    await handle.close();
  });
  return app;
}

/** `sameChannel`: the second process hears the first's notifications and does not poll, so only NOTIFY can tell it. */
async function changeThroughFirstIsServedBySecond(
  t: TestContext,
  dialect: 'sqlite' | 'postgres',
  sameChannel: boolean,
) {
  const { app: first, database } = await buildTestApp(t, { dialect });
  const second = sameChannel
    ? await secondProcess(t, database, database.pgSchema, false)
    : await secondProcess(t, database, `${database.pgSchema ?? ''}deaf`);
  const fx = await environmentFixture(first);
  await putFlags(first, database.handle, database.pgSchema, fx, [{ key: 'banner', type: 'string', value: 'one' }]);
  const before = await waitForVersionAbove(second, fx.sdk, 0);
  const version = before.res.json().version;

  await putFlags(first, database.handle, database.pgSchema, fx, [{ key: 'banner', type: 'string', value: 'two' }]);
  const { res, elapsedMs } = await waitForVersionAbove(second, fx.sdk, version);
  assert.equal(res.json().doc.flags.banner.value, 'two');
  assert.notEqual(res.headers.etag, before.res.headers.etag);
  assert.ok(elapsedMs < 1000, `served after ${elapsedMs} ms`);
  // Both processes build the same bytes and tags, so a load balancer may send a client to either.
  const fromFirst = await getConfig(first, fx.sdk);
  assert.equal(fromFirst.body, res.body);
  assert.equal(fromFirst.headers.etag, res.headers.etag);
  return elapsedMs;
}

for (const dialect of dialects) {
  describe(`delivery across processes on ${dialect}`, () => {
    test('polling alone: a process that hears no notifications serves a change within a second', async (t) => {
      t.diagnostic(
        `served by the second process after ${await changeThroughFirstIsServedBySecond(t, dialect, false)} ms`,
      );
    });

    test('a key revoked through one process is refused by the other', async (t) => {
      const { app: first, database } = await buildTestApp(t, { dialect });
      const second = await secondProcess(t, database, database.pgSchema);
      const fx = await environmentFixture(first);
      assert.equal((await getConfig(second, fx.sdk)).statusCode, 200);
      const keys = await first.inject({
        method: 'GET',
        url: `/api/v1/keys?appId=${fx.target.appId}&env=prod`,
        headers: bearer(fx.user.token),
      });
      const sdkKey = keys
        .json()
        .keys.find((k: { type: string; prefix: string }) => k.type === 'sdk' && fx.sdk.startsWith(k.prefix));
      const revoked = await first.inject({
        method: 'PATCH',
        url: '/api/v1/keys',
        headers: bearer(fx.user.token),
        payload: { keyId: sdkKey.id, action: 'revoke' },
      });
      assert.equal(revoked.statusCode, 200);
      // PostgreSQL carries the revocation by NOTIFY; SQLite processes hear nothing from each other
      // and rely on resolved keys expiring after a second.
      const bound = dialect === 'postgres' ? 250 : 1500;
      const elapsed = await waitFor(
        async () => {
          const res = await getConfig(second, fx.sdk);
          if (res.statusCode !== 401) return false;
          assert.equal(res.json().code, 'KEY_REVOKED');
          return true;
        },
        bound,
        { intervalMs: 10, what: 'the other process refusing the revoked key' },
      );
      t.diagnostic(`refused by the other process after ${elapsed} ms`);
    });

    if (dialect === 'postgres') {
      test('LISTEN/NOTIFY alone (process B does not poll): a change made through process A is served by process B within a second', async (t) => {
        t.diagnostic(`served by process B after ${await changeThroughFirstIsServedBySecond(t, dialect, true)} ms`);
      });
    }
  });
}

// Batches that cannot be stored in full: over the environment's rate, storage failing, a batch the
// database refuses among others.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError } from '../../../../test/helpers/fixtures.js';
import { exposure, refuseEventsOf, sendBatch, T0, telemetryApp } from './telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

for (const dialect of dialects) {
  describe(`telemetry batch failures on ${dialect}`, () => {
    test('over the environment rate: 429 with Retry-After and the full ordered list, admitted items stored', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, {
        dialect,
        now: clock.now,
        config: { telemetryEventsPerSecond: 5 },
      });
      const s = await telemetryApp(app);
      const items = [{ bad: true }, ...Array.from({ length: 8 }, (_, i) => exposure(T0, `u${i}`))];
      const res = await sendBatch(app, s.sdkProd, items);
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.headers['retry-after'], '1');
      const body = res.json();
      assert.equal(body.results.length, 9);
      assert.deepEqual(
        body.results.map((r: any) => r.status),
        [
          'permanent-error',
          'accepted',
          'accepted',
          'accepted',
          'accepted',
          'accepted',
          'retryable-error',
          'retryable-error',
          'retryable-error',
        ],
      );
      for (const r of body.results.slice(6)) {
        assert.equal(r.code, 'rate_limited');
        assert.equal(r.retryAfterSeconds, 1);
      }
      assert.deepEqual([body.accepted, body.duplicates, body.rejected], [5, 0, 4]);
      // Another environment has its own bucket.
      assert.equal((await sendBatch(app, s.sdk.dev!, [exposure(T0, 'u')])).statusCode, 200);
      clock.advance(1000);
      // Clients retry only the retryable items, with the same ids.
      const again = await sendBatch(app, s.sdkProd, items.slice(6));
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(
        again.json().results.map((r: any) => r.status),
        ['accepted', 'accepted', 'accepted'],
      );
      const n = await database.handle.db
        .selectFrom('telemetry_events')
        .where('env_id', '!=', '')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(n.n), 9);
    });

    test('storage failure: 503 service_unavailable, retryable, nothing stored', async (t) => {
      const clock = testClock();
      const { app, database, logs } = await buildTestApp(t, { dialect, now: clock.now, captureLogs: true });
      const s = await telemetryApp(app);
      const db = database.handle.db;
      await sql`DROP TABLE telemetry_watermarks`.execute(db);
      const res = await sendBatch(app, s.sdkProd, [exposure(T0, 'u1'), exposure(T0, 'u2')]);
      const error = expectError(res, 503, 'service_unavailable');
      assert.equal(res.headers['retry-after'], '1');
      assert.doesNotMatch(JSON.stringify(error), /telemetry_|select|insert/i);
      // The operator's log says why: the storage error travels as the 503's cause.
      assert.match(logs(), /telemetry_watermarks/);
      const n = await db
        .selectFrom('telemetry_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(n.n), 0);
      // PostgreSQL keeps dedup keys apart from the events (decision 0047): none of them either.
      if (dialect === 'postgres') {
        const keys = await db
          .selectFrom('telemetry_event_keys')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(keys.n), 0);
      }
    });

    test('a batch the database refuses fails alone: batches of other apps and environments sent with it are accepted and stored', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const other = await telemetryApp(app);
      const db = database.handle.db;
      const poisoned = await db
        .selectFrom('environments')
        .select('id')
        .where('app_id', '=', s.appId)
        .where('slug', '=', 'dev')
        .executeTakeFirstOrThrow();
      await refuseEventsOf(db, dialect, poisoned.id);
      // Sent together, so that they share group transactions as far as the server's timing allows;
      // the answers do not depend on how they were grouped.
      const senders = [s.sdk.dev!, s.sdkProd, s.sdk.staging!, other.sdkProd, other.sdk.dev!, s.pub];
      const rounds = await Promise.all(
        Array.from({ length: 3 }, () =>
          Promise.all(senders.map((token, i) => sendBatch(app, token, [exposure(T0, `u${i}`), exposure(T0, `v${i}`)]))),
        ),
      );
      for (const answers of rounds) {
        expectError(answers[0]!, 503, 'service_unavailable');
        for (const res of answers.slice(1)) {
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.json().accepted, 2);
        }
      }
      const stored = await db
        .selectFrom('telemetry_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.n), 3 * 5 * 2);
      const refused = await db
        .selectFrom(dialect === 'postgres' ? 'telemetry_event_keys' : 'telemetry_events')
        .select('id')
        .where('env_id', '=', poisoned.id)
        .execute();
      assert.deepEqual(refused, []);
    });
  });
}

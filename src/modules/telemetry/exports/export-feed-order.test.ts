// The export feed is read in commit order (decision 0036): events of an ingestion transaction that
// stamped its arrival time long ago but commits only later (a stalled process: GC, CPU throttling, a
// lock wait, SIGSTOP) are still exported, however late they commit. On PostgreSQL the stall is a
// transaction held open on a connection of its own; SQLite has one writer, which orders commits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { dialects } from '../../../../test/helpers/test-app.js';
import { exposure, sendBatch } from '../ingestion/telemetry.fixtures.js';
import { exportSetup } from './exports.fixtures.js';

const exportedIds = (received: { body: string }[]) =>
  received.flatMap((r) => JSON.parse(r.body).events.map((e: { id: string }) => e.id) as string[]);

describe('the export feed in commit order', () => {
  test(
    'on PostgreSQL, events of a transaction that commits late are exported, not passed over',
    { skip: !dialects.includes('postgres') && 'ENSIGN_TEST_POSTGRES_URL is not set' },
    async (t) => {
      const { app, database, s, clock, rx, pump } = await exportSetup(t, 'postgres');
      const env = await database.handle.db
        .selectFrom('environments')
        .select(['id', 'app_id'])
        .where('app_id', '=', s.appId)
        .where('slug', '=', 'prod')
        .executeTakeFirstOrThrow();
      // A first batch creates today's partition (creating one waits for every open ingestion transaction).
      const first = [exposure(clock.now() - 2000, 'zoe')];
      assert.equal((await sendBatch(app, s.sdkProd, first)).statusCode, 200);
      await pump();
      assert.deepEqual(
        exportedIds(rx.received),
        first.map((e) => e.id),
      );
      const stalled = database.open();
      t.after(() => stalled.close());
      // The stalled writer: its transaction has an id and stamped its events 30 s ago; it commits last.
      let commit!: () => void;
      const released = new Promise<void>((resolve) => (commit = resolve));
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const lateIds = ['late-1', 'late-2', 'late-3'];
      const stall = stalled.db.transaction().execute(async (trx) => {
        for (const id of lateIds) {
          await trx
            .insertInto('telemetry_events')
            .values({
              env_id: env.id,
              id,
              app_id: env.app_id,
              kind: 'exposure',
              ts: clock.now() - 2000,
              received_at: clock.now() - 30_000,
              feed_seq: sql<number>`pg_current_xact_id()::text::bigint`,
              targeting_key: id,
              flag_key: 'shown',
              variant: 'on',
              value: null,
              reason: 'SPLIT',
              experiment_id: null,
              iteration_id: null,
              iteration_revision: null,
              metric_key: null,
              metric_value: null,
              attributes: null,
            })
            .execute();
          // Its dedup key, as ingestion writes it beside the event on PostgreSQL (decision 0047).
          await trx
            .insertInto('telemetry_event_keys')
            .values({ env_id: env.id, id, content_hash: `digest-${id}`, ts: clock.now() - 2000 })
            .execute();
        }
        wrote();
        await released;
      });
      await written;
      const onTime = [exposure(clock.now() - 1000, 'alice'), exposure(clock.now() - 900, 'bob')];
      assert.equal((await sendBatch(app, s.sdkProd, onTime)).statusCode, 200);
      await pump(10_000, { catchUp: false });
      assert.deepEqual(
        exportedIds(rx.received),
        first.map((e) => e.id),
        'nothing committed after the stalled transaction began is read while it is in flight',
      );
      commit();
      await stall;
      await pump(10_000);
      assert.deepEqual(
        exportedIds(rx.received).sort(),
        [...first, ...onTime]
          .map((e) => e.id)
          .concat(lateIds)
          .sort(),
      );
    },
  );

  for (const dialect of dialects) {
    test(`on ${dialect}, every batch is exported once, in the order it committed`, async (t) => {
      const { app, s, clock, rx, pump } = await exportSetup(t, dialect);
      const sent: string[] = [];
      for (let i = 0; i < 5; i++) {
        const batch = [
          exposure(clock.now() - 1000, `a${i}`),
          exposure(clock.now() - 900, `b${i}`),
          exposure(clock.now() - 800, `c${i}`),
        ];
        clock.advance(i % 2 === 0 ? 1 : 7_000);
        assert.equal((await sendBatch(app, s.sdkProd, batch)).statusCode, 200);
        sent.push(...batch.map((e) => e.id));
        await pump(i === 2 ? 0 : 1_000);
      }
      await pump();
      assert.deepEqual(exportedIds(rx.received).sort(), [...sent].sort());
      assert.equal(new Set(exportedIds(rx.received)).size, sent.length, 'none twice');
    });
  }
});

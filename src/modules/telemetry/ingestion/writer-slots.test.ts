// Writer slots (decision 0048): a process writes its own slot's watermark and rollup rows; readers
// combine the slots. On PostgreSQL a lane whose slot another transaction has claimed moves to
// another slot instead of taking turns with it (decision 0072).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, testDatabase } from '../../../../test/helpers/test-app.js';
import { validateItem } from './event-validation.js';
import { storeBatch } from './event-store.repository.js';
import { scanRollups, watermarkOf } from './insight-reads.repository.js';
import { sql } from 'kysely';
import { SLOT_LOCKS, writerSlot, WRITER_SLOTS } from './writer-slot.js';
import type { ValidEvent } from './telemetry.model.js';

const T0 = Date.UTC(2026, 10, 20, 12);
const item = (id: string, subject: string) =>
  validateItem(
    { id, kind: 'exposure', timestamp: new Date(T0).toISOString(), targetingKey: subject, flagKey: 'f', variant: 'on' },
    0,
    T0,
  ) as ValidEvent;

for (const dialect of dialects) {
  describe(`writer slots on ${dialect}`, () => {
    test('the watermark is the newest slot row; a bucket is the merge of its slot rows', async (t) => {
      const database = await testDatabase(t, dialect);
      const db = database.handle.db;
      const slot = writerSlot(db);
      assert.ok(slot >= 0 && slot < WRITER_SLOTS);
      if (dialect === 'sqlite') assert.equal(slot, 0);
      await storeBatch(db, {
        envId: 'env_s',
        appId: 'app_s',
        receivedAt: T0 + 10,
        events: [item('a', 'u1'), item('b', 'u2')],
      });
      assert.deepEqual(await watermarkOf(db, 'env_s'), { receivedAt: T0 + 10, eventId: 'b' });

      // Another process's slot: an older row does not move the watermark back, a newer one moves it on.
      const other = (slot + 1) % WRITER_SLOTS;
      await db
        .insertInto('telemetry_watermarks')
        .values({ env_id: 'env_s', slot: other, received_at: T0 + 5, event_id: 'z' })
        .execute();
      assert.deepEqual(await watermarkOf(db, 'env_s'), { receivedAt: T0 + 10, eventId: 'b' });
      await db
        .updateTable('telemetry_watermarks')
        .set({ received_at: T0 + 20, event_id: 'c' })
        .where('slot', '=', other)
        .execute();
      assert.deepEqual(await watermarkOf(db, 'env_s'), { receivedAt: T0 + 20, eventId: 'c' });

      // The other slot's row of the same bucket: both are read, as parts of one bucket.
      const row = await db
        .selectFrom('telemetry_rollups')
        .selectAll()
        .where('env_id', '=', 'env_s')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('telemetry_rollups')
        .values({ ...row, slot: other, events: 3 })
        .execute();
      let events = 0;
      const scanned = await scanRollups(
        db,
        { envId: 'env_s', from: T0 - 3_600_000, to: T0 + 3_600_000, filters: {} },
        { dimensions: ['flagKey'], kind: false, metrics: false },
        (r) => {
          events += r.events;
        },
      );
      assert.equal(scanned, 2);
      assert.equal(events, 5);
      // This process's next batch merges into its own slot's row only.
      await storeBatch(db, { envId: 'env_s', appId: 'app_s', receivedAt: T0 + 30, events: [item('d', 'u3')] });
      const rows = await db
        .selectFrom('telemetry_rollups')
        .select(['slot', 'events'])
        .where('env_id', '=', 'env_s')
        .orderBy('slot')
        .execute();
      assert.deepEqual(
        rows.map((r) => [Number(r.slot), Number(r.events)]).sort((x, y) => x[0]! - y[0]!),
        [
          [slot, 3],
          [other, 3],
        ].sort((x, y) => x[0]! - y[0]!),
      );
    });

    if (dialect === 'postgres')
      test("a lane whose slot another process's transaction holds moves to another slot, without waiting", async (t) => {
        const database = await testDatabase(t, dialect);
        const db = database.handle.db;
        const taken = writerSlot(db);
        // Another process's group transaction, in the middle of writing slot `taken`.
        let finish!: () => void;
        const finished = new Promise<void>((resolve) => (finish = resolve));
        let claimed!: () => void;
        const isClaimed = new Promise<void>((resolve) => (claimed = resolve));
        const other = db.transaction().execute(async (trx) => {
          await sql`select pg_advisory_xact_lock(${SLOT_LOCKS}::integer, ${taken}::integer)`.execute(trx);
          claimed();
          await finished;
        });
        await isClaimed;
        try {
          await storeBatch(db, { envId: 'env_m', appId: 'app_m', receivedAt: T0 + 10, events: [item('a', 'u1')] });
        } finally {
          finish();
          await other;
        }
        const moved = writerSlot(db);
        assert.notEqual(moved, taken);
        assert.ok(moved >= 0 && moved < WRITER_SLOTS);
        const slotsOf = async (table: 'telemetry_watermarks' | 'telemetry_rollups') =>
          (await db.selectFrom(table).select('slot').where('env_id', '=', 'env_m').execute()).map((r) =>
            Number(r.slot),
          );
        assert.deepEqual(await slotsOf('telemetry_watermarks'), [moved]);
        assert.deepEqual(await slotsOf('telemetry_rollups'), [moved]);
        // The lane keeps its new slot once the other transaction has ended.
        await storeBatch(db, { envId: 'env_m', appId: 'app_m', receivedAt: T0 + 20, events: [item('b', 'u2')] });
        assert.equal(writerSlot(db), moved);
        assert.deepEqual(await slotsOf('telemetry_watermarks'), [moved]);
        assert.deepEqual(await watermarkOf(db, 'env_m'), { receivedAt: T0 + 20, eventId: 'b' });
      });
  });
}

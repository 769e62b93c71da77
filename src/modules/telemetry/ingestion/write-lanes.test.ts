// Write lanes (decision 0060): on PostgreSQL a process runs two group transactions at once, each
// writing its own slot's watermark and rollup rows; on SQLite one. Both lanes' events are stored once
// and read back as one environment.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, testDatabase } from '../../../../test/helpers/test-app.js';
import { createBatchWriter } from './batch-writer.js';
import { storeBatches, type StoreBatchInput, type StoreOutcome } from './event-store.repository.js';
import { validateItem } from './event-validation.js';
import type { GroupStore } from './group-store.js';
import { scanRollups, watermarkOf } from './insight-reads.repository.js';
import type { ValidEvent } from './telemetry.model.js';
import { writeLanes, writerSlot } from './writer-slot.js';

const T0 = Date.UTC(2026, 10, 20, 12);
const item = (id: string) =>
  validateItem(
    {
      id,
      kind: 'exposure',
      timestamp: new Date(T0).toISOString(),
      targetingKey: `u-${id}`,
      flagKey: 'f',
      variant: 'on',
    },
    0,
    T0,
  ) as ValidEvent;
const batchOf = (ids: string[], receivedAt = T0): StoreBatchInput => ({
  envId: 'env_l',
  appId: 'app_l',
  receivedAt,
  events: ids.map(item),
});

/** A store whose groups stay open until the test settles them, recording each group's lane. */
function heldStore() {
  const open: { lane: number; size: number; settle: () => void }[] = [];
  const store: GroupStore = {
    store: (inputs, lane = 0) =>
      new Promise<StoreOutcome[][]>((resolve) => {
        open.push({
          lane,
          size: inputs.length,
          settle: () => resolve(inputs.map((i) => i.events.map(() => 'accepted'))),
        });
      }),
    close: async () => undefined,
  };
  return { open, store };
}

const turn = () => new Promise((r) => setImmediate(r));

test('with two lanes a second group is written while the first is open; with one it waits', async () => {
  for (const lanes of [1, 2]) {
    const { open, store } = heldStore();
    const writer = createBatchWriter(store, { lanes });
    const first = writer.store(batchOf(['a']));
    await turn();
    assert.deepEqual(
      open.map((g) => [g.lane, g.size]),
      [[0, 1]],
    );
    // Arrive while the first group is open: one group for the free lane, if there is one.
    const second = [writer.store(batchOf(['b'])), writer.store(batchOf(['c']))];
    await turn();
    assert.deepEqual(
      open.map((g) => [g.lane, g.size]),
      lanes === 2
        ? [
            [0, 1],
            [1, 2],
          ]
        : [[0, 1]],
      `${lanes} lane(s)`,
    );
    open[0]!.settle();
    assert.deepEqual(await first, ['accepted']);
    await turn();
    // One lane: the waiting batches are the next group, on lane 0.
    assert.equal(open.length, 2);
    assert.deepEqual([open[1]!.lane, open[1]!.size], [lanes === 2 ? 1 : 0, 2]);
    open[1]!.settle();
    assert.deepEqual(await Promise.all(second), [['accepted'], ['accepted']]);
  }
});

for (const dialect of dialects) {
  describe(`write lanes on ${dialect}`, () => {
    test('groups of two lanes at once: each event stored once, one slot per lane, read as one environment', async (t) => {
      const database = await testDatabase(t, dialect);
      const db = database.handle.db;
      assert.equal(writeLanes(db, 2), dialect === 'postgres' ? 2 : 1);
      if (dialect === 'postgres') assert.notEqual(writerSlot(db, 0), writerSlot(db, 1));
      else assert.equal(writerSlot(db, 1), 0);
      // The same id in both lanes' groups at once: one is accepted, the other is its duplicate.
      const [zero, one] = await Promise.all([
        storeBatches(db, [batchOf(['a', 'b', 'shared'], T0 + 10)], { lane: 0 }),
        storeBatches(db, [batchOf(['c', 'shared'], T0 + 20)], { lane: 1 }),
      ]);
      const outcomes = [...zero[0]!, ...one[0]!];
      assert.equal(outcomes.filter((o) => o === 'accepted').length, 4);
      assert.equal(outcomes.filter((o) => o === 'duplicate').length, 1);
      const stored = await db.selectFrom('telemetry_events').select('id').orderBy('id').execute();
      assert.deepEqual(
        stored.map((e) => e.id),
        ['a', 'b', 'c', 'shared'],
      );
      const slots = await db.selectFrom('telemetry_watermarks').select('slot').where('env_id', '=', 'env_l').execute();
      assert.equal(new Set(slots.map((s) => Number(s.slot))).size, dialect === 'postgres' ? 2 : 1);
      assert.equal((await watermarkOf(db, 'env_l'))?.receivedAt, T0 + 20);
      let events = 0;
      await scanRollups(
        db,
        { envId: 'env_l', from: T0 - 3_600_000, to: T0 + 3_600_000, filters: {} },
        { dimensions: ['flagKey'], kind: false, metrics: false },
        (r) => {
          events += r.events;
        },
      );
      assert.equal(events, 4, 'the rollups of both slots add up to the accepted events');
    });
  });
}

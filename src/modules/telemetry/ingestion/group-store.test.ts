import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { dialects, testDatabase } from '../../../../test/helpers/test-app.js';
import type { Database } from '../../../db/database.js';
import { inTransaction } from '../../../db/transaction.js';
import { createBatchWriter } from './batch-writer.js';
import { validateItem } from './event-validation.js';
import { GroupStoreUnavailable, inlineGroupStore, threadGroupStore, type GroupStore } from './group-store.js';
import { keysApart, type StoreBatchInput } from './event-store.repository.js';
import type { ValidEvent } from './telemetry.model.js';
import { refuseEventsOf, T0 } from './telemetry.fixtures.js';
import { subjectHashOf, writeTombstone } from './subject-erasure.repository.js';

function batch(ids: string[], subject = 'u1'): StoreBatchInput {
  const events = ids.map(
    (id, index) =>
      validateItem(
        {
          id,
          kind: 'exposure',
          timestamp: new Date(T0).toISOString(),
          targetingKey: subject,
          flagKey: 'f',
          variant: 'on',
        },
        index,
        T0,
      ) as ValidEvent,
  );
  return { envId: 'env_thread', appId: 'app_thread', receivedAt: T0, events };
}

async function fileDatabase(t: { after(fn: () => Promise<void>): void }) {
  const database = await testDatabase(t, 'sqlite');
  assert.ok(database.handle.sqliteFile);
  return { database, url: `sqlite://${database.handle.sqliteFile}` };
}

test('the writer thread stores groups on its own connection: outcomes per batch, duplicates and conflicts on replay', async (t) => {
  const { database, url } = await fileDatabase(t);
  const store = threadGroupStore(url);
  t.after(() => store.close());
  const [first, second] = await Promise.all([
    store.store([batch(['a', 'b']), batch(['c'])]),
    store.store([batch(['d'])]),
  ]);
  assert.deepEqual(first, [['accepted', 'accepted'], ['accepted']]);
  assert.deepEqual(second, [['accepted']]);
  assert.deepEqual(await store.store([batch(['a', 'e']), batch(['d'], 'someone else')]), [
    ['duplicate', 'accepted'],
    ['conflict'],
  ]);
  // Committed before the answer: the main connection reads every accepted event and the rollup.
  const events = await database.handle.db.selectFrom('telemetry_events').select('id').orderBy('id').execute();
  assert.deepEqual(
    events.map((e) => e.id),
    ['a', 'b', 'c', 'd', 'e'],
  );
  const rollup = await database.handle.db.selectFrom('telemetry_rollups').select('events').executeTakeFirstOrThrow();
  assert.equal(Number(rollup.events), 5);
});

test('the main connection and the writer thread take turns for the write lock: read-then-write transactions never fail', async (t) => {
  const { database, url } = await fileDatabase(t);
  const store = threadGroupStore(url);
  t.after(() => store.close());
  const db = database.handle.db;
  await sql`CREATE TABLE counter (n integer NOT NULL)`.execute(db);
  await sql`INSERT INTO counter VALUES (0)`.execute(db);
  const groups = Array.from({ length: 40 }, (_, g) =>
    store.store([batch(Array.from({ length: 100 }, (_, i) => `g${g}-${i}`))]),
  );
  for (let i = 0; i < 40; i++) {
    await inTransaction(db, async (trx) => {
      const { rows } = await sql<{ n: number }>`SELECT n FROM counter`.execute(trx);
      await new Promise((r) => setTimeout(r, 1));
      await sql`UPDATE counter SET n = ${rows[0]!.n + 1}`.execute(trx);
    });
  }
  await Promise.all(groups);
  const { rows } = await sql<{ n: number }>`SELECT n FROM counter`.execute(db);
  assert.equal(rows[0]!.n, 40);
  const stored = await db
    .selectFrom('telemetry_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  assert.equal(Number(stored.n), 4000);
});

test('a group the thread does not answer in time fails; a closed store refuses groups', async (t) => {
  const { url } = await fileDatabase(t);
  const slow = threadGroupStore(url, { timeoutMs: 1 });
  await assert.rejects(slow.store([batch(['late'])]), /did not answer in time/);
  await slow.close();
  await assert.rejects(slow.store([batch(['after'])]), /closed/);
});

test('a failing group is answered with its error and the thread carries on', async (t) => {
  const { database, url } = await fileDatabase(t);
  const store = threadGroupStore(url);
  t.after(() => store.close());
  await sql`DROP TABLE telemetry_watermarks`.execute(database.handle.db);
  await assert.rejects(store.store([batch(['x'])]), /telemetry_watermarks/);
  await sql`CREATE TABLE telemetry_watermarks (env_id text NOT NULL, slot integer NOT NULL, received_at bigint NOT NULL, event_id text NOT NULL, PRIMARY KEY (env_id, slot))`.execute(
    database.handle.db,
  );
  assert.deepEqual(await store.store([batch(['x'])]), [['accepted']]);
});

/** A group store that records the size of every group it is given. */
function recording(store: GroupStore) {
  const sizes: number[] = [];
  return {
    sizes,
    store: {
      store: (inputs: StoreBatchInput[]) => (sizes.push(inputs.length), store.store(inputs)),
      close: () => store.close(),
    } satisfies GroupStore,
  };
}

const ENVS = ['env_a', 'env_b', 'env_bad', 'env_c', 'env_d'];
const groupBatch = (envId: string) => ({
  ...batch([`${envId}-1`, `${envId}-2`], `subject-${envId}`),
  envId,
  appId: `app_${envId}`,
});

async function expectIsolated(db: Kysely<Database>, store: GroupStore) {
  const { sizes, store: counted } = recording(store);
  const writer = createBatchWriter(counted);
  // Queued in one turn of the event loop: one group holding every environment's batch.
  const answers = await Promise.allSettled(ENVS.map((envId) => writer.store(groupBatch(envId))));
  assert.equal(sizes[0], ENVS.length, `one group first: ${sizes.join(', ')}`);
  answers.forEach((answer, i) => {
    if (ENVS[i] === 'env_bad') {
      assert.equal(answer.status, 'rejected');
      assert.match(String((answer as PromiseRejectedResult).reason), /refused by the test/);
    } else assert.deepEqual(answer, { status: 'fulfilled', value: ['accepted', 'accepted'] }, ENVS[i]);
  });
  const events = await db.selectFrom('telemetry_events').select(['env_id', 'id']).orderBy('id').execute();
  assert.deepEqual(
    events.map((e) => e.id),
    ['env_a-1', 'env_a-2', 'env_b-1', 'env_b-2', 'env_c-1', 'env_c-2', 'env_d-1', 'env_d-2'],
  );
  const rollups = await db.selectFrom('telemetry_rollups').select(['env_id', 'events']).orderBy('env_id').execute();
  assert.deepEqual(
    rollups.map((r) => [r.env_id, Number(r.events)]),
    [
      ['env_a', 2],
      ['env_b', 2],
      ['env_c', 2],
      ['env_d', 2],
    ],
  );
  const watermarks = await db.selectFrom('telemetry_watermarks').select('env_id').orderBy('env_id').execute();
  assert.deepEqual(
    watermarks.map((w) => w.env_id),
    ['env_a', 'env_b', 'env_c', 'env_d'],
  );
  // Nothing of the refused batch: no dedup key either, so its retry is a new attempt.
  const keys = await db
    .selectFrom(keysApart(db) ? 'telemetry_event_keys' : 'telemetry_events')
    .select('id')
    .where('env_id', '=', 'env_bad')
    .execute();
  assert.deepEqual(keys, []);
}

for (const dialect of dialects) {
  test(`group commit on ${dialect}: a batch that cannot be stored fails alone, every other batch of its group is accepted and stored`, async (t) => {
    const database = await testDatabase(t, dialect);
    await refuseEventsOf(database.handle.db, dialect, 'env_bad');
    await expectIsolated(database.handle.db, inlineGroupStore(database.handle.db));
  });
}

test('group commit in the SQLite writer thread: a batch that cannot be stored fails alone', async (t) => {
  const { database, url } = await fileDatabase(t);
  await refuseEventsOf(database.handle.db, 'sqlite', 'env_bad');
  const store = threadGroupStore(url);
  t.after(() => store.close());
  await expectIsolated(database.handle.db, store);
});

test('a store that cannot run groups at all is not asked again batch by batch', async () => {
  const calls: number[] = [];
  const down: GroupStore = {
    store: async (inputs) => {
      calls.push(inputs.length);
      throw new GroupStoreUnavailable('the telemetry writer thread did not answer in time');
    },
    close: async () => undefined,
  };
  const writer = createBatchWriter(down);
  const answers = await Promise.allSettled(ENVS.map((envId) => writer.store(groupBatch(envId))));
  assert.ok(answers.every((a) => a.status === 'rejected' && /did not answer/.test(String(a.reason))));
  assert.deepEqual(calls, [ENVS.length]);
});

// Erasure tombstones are read in the group's transaction (decision 0063): an erased subject's events
// at or before the cutoff are dropped ('erased', answered accepted), in the writer thread as inline,
// and only in the environment that erased the subject.
const SECRET = 'group-store-test-secret';
function erasureGroup(): StoreBatchInput[] {
  const at = (id: string, subject: string, ts: number) =>
    validateItem(
      {
        id,
        kind: 'exposure',
        timestamp: new Date(ts).toISOString(),
        targetingKey: subject,
        flagKey: 'f',
        variant: 'on',
      },
      0,
      T0,
    ) as ValidEvent;
  return [
    {
      envId: 'env_erased',
      appId: 'app_e',
      receivedAt: T0,
      events: [at('old', 'gone', T0 - 60_000), at('kept', 'stays', T0 - 60_000), at('new', 'gone', T0)],
    },
    { envId: 'env_other', appId: 'app_e', receivedAt: T0, events: [at('elsewhere', 'gone', T0 - 60_000)] },
  ];
}
async function expectErasedDropped(db: Kysely<Database>, store: GroupStore) {
  await writeTombstone(db, {
    envId: 'env_erased',
    subjectHash: subjectHashOf(SECRET, 'env_erased', 'gone'),
    cutoff: T0 - 1,
  });
  assert.deepEqual(await store.store(erasureGroup()), [['erased', 'accepted', 'accepted'], ['accepted']]);
  const stored = await db.selectFrom('telemetry_events').select('id').orderBy('id').execute();
  assert.deepEqual(
    stored.map((e) => e.id),
    ['elsewhere', 'kept', 'new'],
  );
}

test('the writer thread drops erased subjects’ old events in its transaction', async (t) => {
  const { database, url } = await fileDatabase(t);
  const store = threadGroupStore(url, { tombstoneKey: SECRET });
  t.after(() => store.close());
  await expectErasedDropped(database.handle.db, store);
});

for (const dialect of dialects) {
  test(`inline on ${dialect}: erased subjects’ old events are dropped in the group's transaction`, async (t) => {
    const database = await testDatabase(t, dialect);
    await expectErasedDropped(database.handle.db, inlineGroupStore(database.handle.db, { tombstoneKey: SECRET }));
  });
}

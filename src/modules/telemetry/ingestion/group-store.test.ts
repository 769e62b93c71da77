import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../../test/helpers/test-app.js';
import { inTransaction } from '../../../db/transaction.js';
import { validateItem } from './event-validation.js';
import { threadGroupStore } from './group-store.js';
import type { StoreBatchInput } from './telemetry.repository.js';
import type { ValidEvent } from './telemetry.model.js';
import { T0 } from './telemetry.fixtures.js';

function batch(ids: string[], subject = 'u1'): StoreBatchInput {
  const events = ids.map((id, index) => validateItem({ id, kind: 'exposure', timestamp: new Date(T0).toISOString(), targetingKey: subject, flagKey: 'f', variant: 'on' }, index, T0) as ValidEvent);
  return { envId: 'env_thread', appId: 'app_thread', receivedAt: T0, events };
}

async function fileDatabase(t: { after(fn: () => Promise<void>): void }) {
  const database = await createTestDatabase('sqlite');
  t.after(async () => {
    await database.handle.close();
    await database.drop();
  });
  assert.ok(database.handle.sqliteFile);
  return { database, url: `sqlite://${database.handle.sqliteFile}` };
}

test('the writer thread stores groups on its own connection: outcomes per batch, duplicates and conflicts on replay', async (t) => {
  const { database, url } = await fileDatabase(t);
  const store = threadGroupStore(url);
  t.after(() => store.close());
  const [first, second] = await Promise.all([store.store([batch(['a', 'b']), batch(['c'])]), store.store([batch(['d'])])]);
  assert.deepEqual(first, [['accepted', 'accepted'], ['accepted']]);
  assert.deepEqual(second, [['accepted']]);
  assert.deepEqual(await store.store([batch(['a', 'e']), batch(['d'], 'someone else')]), [['duplicate', 'accepted'], ['conflict']]);
  // Committed before the answer: the main connection reads every accepted event and the rollup.
  const events = await database.handle.db.selectFrom('telemetry_events').select('id').orderBy('id').execute();
  assert.deepEqual(events.map((e) => e.id), ['a', 'b', 'c', 'd', 'e']);
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
  const groups = Array.from({ length: 40 }, (_, g) => store.store([batch(Array.from({ length: 100 }, (_, i) => `g${g}-${i}`))]));
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
  const stored = await db.selectFrom('telemetry_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(stored.n), 4000);
});

test('a group the thread does not answer in time fails; a closed store refuses groups', async (t) => {
  const { url } = await fileDatabase(t);
  const slow = threadGroupStore(url, 1);
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
  await sql`CREATE TABLE telemetry_watermarks (env_id text PRIMARY KEY, received_at bigint NOT NULL, event_id text NOT NULL)`.execute(database.handle.db);
  assert.deepEqual(await store.store([batch(['x'])]), [['accepted']]);
});

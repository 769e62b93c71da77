// Rows as arrays on both engines: values in the order of the columns named (whatever the table's
// order), the same values the object rows hold (text, numbers, bytes, null), inside a transaction
// too; and the same query read as objects afterwards still gets objects (the marked statement is
// prepared apart from the unmarked one on SQLite).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { dialects, testDatabase } from '../../test/helpers/test-app.js';
import { selectArrayRows } from './array-rows.js';
import type { Executor } from './transaction.js';

interface ProbeRow {
  k: string;
  n: number | null;
  y: Buffer | null;
}

for (const dialect of dialects) {
  describe(`rows as arrays on ${dialect}`, () => {
    test('values in the order named, equal to the object rows; in a transaction; objects still objects', async (t) => {
      const database = await testDatabase(t, dialect);
      const db = database.handle.db as unknown as Kysely<{ probe: ProbeRow }>;
      const blob = dialect === 'postgres' ? sql`bytea` : sql`blob`;
      await sql`create table probe (k text primary key, n bigint, y ${blob})`.execute(db);
      await db
        .insertInto('probe')
        .values([
          { k: 'a', n: 1, y: Buffer.from([0, 255]) },
          { k: 'b Ωmega', n: null, y: null },
          { k: 'c', n: 2 ** 40, y: Buffer.alloc(0) },
        ])
        .execute();
      const columns = ['y', 'k', 'n'] as const;
      const query = (executor: Kysely<{ probe: ProbeRow }>) =>
        executor
          .selectFrom('probe')
          .select([...columns])
          .where('k', '<>', 'none')
          .orderBy('k');
      const asExecutor = (executor: unknown) => executor as Executor;

      const arrays = await selectArrayRows(asExecutor(db), query(db), columns);
      const objects = await query(db).execute();
      assert.equal(arrays.length, 3);
      arrays.forEach((array, i) => {
        assert.ok(Array.isArray(array), `row ${i} is not an array`);
        const object = objects[i]!;
        assert.deepEqual(
          array.map((v) => (v instanceof Uint8Array ? Buffer.from(v) : v === null ? null : String(v))),
          columns.map((c) => {
            const v = object[c];
            return v instanceof Uint8Array ? Buffer.from(v) : v === null ? null : String(v);
          }),
        );
      });
      assert.deepEqual(
        arrays.map((a) => a[1]),
        ['a', 'b Ωmega', 'c'],
      );
      assert.ok(!Array.isArray(objects[0]), 'the unmarked query read objects');

      const inTransaction = await db
        .transaction()
        .execute((trx) => selectArrayRows(asExecutor(trx), query(trx), columns));
      assert.deepEqual(inTransaction, arrays);
      // And objects once more, after the marked statement was prepared and cached.
      assert.ok(!Array.isArray((await query(db).execute())[0]));
    });
  });
}

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, testDatabase } from '../../test/helpers/test-app.js';
import { inTransaction } from './transaction.js';
import { forUpdate } from './row-locks.js';

for (const dialect of dialects) {
  describe(`forUpdate on ${dialect}`, () => {
    test('adds FOR UPDATE on PostgreSQL only, and the query runs in a transaction', async (t) => {
      const database = await testDatabase(t, dialect);
      const { db } = database.handle;
      const query = forUpdate(db, db.selectFrom('users').select('id').where('id', '=', 'usr_none'));
      assert.equal(/ for update$/.test(query.compile().sql), dialect === 'postgres', query.compile().sql);
      const rows = await inTransaction(db, (trx) =>
        forUpdate(trx, trx.selectFrom('users').select('id').where('id', '=', 'usr_none')).execute(),
      );
      assert.deepEqual(rows, []);
    });
  });
}

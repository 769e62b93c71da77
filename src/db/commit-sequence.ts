// Commit sequences (decision 0036): a number per write transaction such that, below the commit
// horizon, no transaction with a smaller number can still commit. A feed that reads rows stamped
// with their transaction's sequence, in sequence order and only below the horizon, passes nothing
// over however late a transaction commits.
// - PostgreSQL: the transaction id (xid8, 64 bits, never wraps); the horizon is the oldest
//   transaction still in flight, from the reading statement's own snapshot.
// - SQLite: a counter (table `commit_sequence`, one row) raised inside the write transaction; the
//   single writer commits in the order it raises it, so every committed row is below the horizon.
import { sql, type Expression } from 'kysely';
import { dialectOf } from './dialect.js';
import type { Executor } from './transaction.js';

/**
 * The sequence to write on the rows of the calling write transaction, or null on PostgreSQL, where
 * a row inserted without it gets its transaction's id from the column's default
 * (`pg_current_xact_id()`, migration 0152): asking for it first would cost a round trip per
 * transaction for a value the database writes anyway.
 */
export async function sequenceToStamp(trx: Executor): Promise<number | null> {
  if (dialectOf(trx) === 'postgres') return null;
  const row = await trx
    .updateTable('commit_sequence')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('id', '=', 1)
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/** The lowest sequence a transaction may still commit with: what a feed starting now starts at. */
export async function commitHorizon(db: Executor): Promise<number> {
  if (dialectOf(db) === 'postgres') {
    const { rows } = await sql<{ seq: string }>`select pg_snapshot_xmin(pg_current_snapshot())::text as seq`.execute(
      db,
    );
    return Number(rows[0]!.seq);
  }
  const row = await db.selectFrom('commit_sequence').select('value').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(row.value) + 1;
}

/**
 * The horizon as an expression of the reading statement, or null where every committed row is
 * below it (SQLite). On PostgreSQL it must be evaluated in the statement that reads the rows: that
 * statement's snapshot sees every transaction below it that committed.
 */
export function statementCommitHorizon(db: Executor): Expression<number> | null {
  if (dialectOf(db) !== 'postgres') return null;
  return sql<number>`(select pg_snapshot_xmin(pg_current_snapshot())::text::bigint)`;
}

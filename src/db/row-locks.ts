// Row locks for read-then-write transactions. PostgreSQL takes them with FOR UPDATE; SQLite has no
// such clause (its write transaction already holds the whole database), so there the query runs as is.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { dialectOf } from './dialect.js';
import type { Executor } from './transaction.js';

/** The query, locking the rows it reads until the transaction of `db` ends. */
export function forUpdate<DB, TB extends keyof DB, O>(
  db: Executor,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate() : query;
}

/**
 * The query, locking the rows it reads and skipping rows another transaction holds: workers taking
 * the next item of a queue each get a different one. SQLite's single writer already serialises them.
 */
export function forUpdateSkipLocked<DB, TB extends keyof DB, O>(
  db: Executor,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/**
 * Whether a read-modify-write must first create missing rows so the lock covers them: on PostgreSQL
 * a row another transaction is inserting cannot be locked by FOR UPDATE. SQLite's writer already
 * holds the database's one write lock once its transaction has written anything.
 */
export function lockNeedsRows(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * Whether several transactions write at the same time (PostgreSQL), so rows they all update are a
 * queue; SQLite runs one writing transaction at a time anyway.
 */
export function writersRunConcurrently(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

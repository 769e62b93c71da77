// Row locks for read-modify-write inside a transaction. PostgreSQL needs FOR UPDATE so two processes
// merging into the same row serialise; SQLite has no such clause and needs none (one writer at a time).
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { dialectOf } from './dialect.js';

export function lockedForUpdate<DB, TB extends keyof DB, O>(db: Kysely<any>, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate() : query;
}

/**
 * Whether a read-modify-write must first create missing rows so the lock covers them: on PostgreSQL
 * a row another transaction is inserting cannot be locked by FOR UPDATE. SQLite's writer already
 * holds the database's one write lock once its transaction has written anything.
 */
export function lockNeedsRows(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

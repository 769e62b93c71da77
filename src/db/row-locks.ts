// Row locks for read-then-write transactions. PostgreSQL takes them with FOR UPDATE; SQLite has no
// such clause (its write transaction already holds the whole database), so there the query runs as is.
import type { SelectQueryBuilder } from 'kysely';
import { dialectOf } from './dialect.js';
import type { Executor } from './transaction.js';

/** The query, locking the rows it reads until the transaction of `db` ends. */
export function forUpdate<DB, TB extends keyof DB, O>(db: Executor, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate() : query;
}

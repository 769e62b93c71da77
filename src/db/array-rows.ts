// Reads whose rows come back as arrays of values in the order of the columns named, not as objects.
// An insight query scans up to 10,000 rollup rows; on SQLite, better-sqlite3 building an object per
// row (a property per column) cost 23.6 ms of such a scan where the same rows as arrays cost 14.1
// and SQLite's own work under 2 (decision 0071).
//
// The statement's text carries a leading SQL comment that SQLite ignores and the statement cache
// (create-db.ts) recognises: it prepares that text in better-sqlite3's raw mode. The marked text is
// another text than the same query's unmarked one, so a statement is never shared between modes.
// On PostgreSQL the rows are read as objects and put into arrays here (nothing gained, the same
// answer).
import { CompiledQuery, type Compilable } from 'kysely';
import { dialectOf } from './dialect.js';
import type { Executor } from './transaction.js';

/** The comment that opens a statement read as arrays (create-db.ts prepares it in raw mode). */
export const ARRAY_ROWS_MARK = '/* rows as arrays */ ';

/**
 * Runs a select whose result columns are exactly `columns`, in that order (its `select` list), and
 * returns each row as an array of their values.
 */
export async function selectArrayRows(
  executor: Executor,
  query: Compilable<unknown>,
  columns: readonly string[],
): Promise<unknown[][]> {
  const compiled = query.compile();
  if (dialectOf(executor) === 'postgres') {
    const { rows } = await executor.executeQuery<Record<string, unknown>>(compiled);
    return rows.map((row) => columns.map((column) => row[column]));
  }
  const { rows } = await executor.executeQuery<unknown[]>(
    CompiledQuery.raw(ARRAY_ROWS_MARK + compiled.sql, [...compiled.parameters]),
  );
  return rows;
}

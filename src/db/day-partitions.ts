// Day partitions of a table partitioned by range of a Unix-ms column (PostgreSQL declarative
// partitioning). On SQLite tables are not partitioned: these helpers do nothing there and the caller
// deletes rows instead. Partition names are `<table>_dYYYYMMDD` and hold [day start, next day start).
import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect.js';

const DAY_MS = 86_400_000;

function partitionName(table: string, day: number): string {
  return `${table}_d${new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** Whether retention on this database drops partitions (PostgreSQL) or deletes rows (SQLite). */
export function partitionsByDay(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * Creates the partitions of the given days (Unix-ms day numbers: ms / 86,400,000) that do not exist.
 * Run outside the writing transaction: creating a partition locks the parent table briefly. Another
 * process creating the same partition at the same moment is not an error.
 */
export async function ensureDayPartitions(db: Kysely<any>, table: string, days: Iterable<number>): Promise<void> {
  if (!partitionsByDay(db)) return;
  for (const day of days) {
    const from = day * DAY_MS;
    try {
      await sql`CREATE TABLE IF NOT EXISTS ${sql.id(partitionName(table, day))} PARTITION OF ${sql.id(table)} FOR VALUES FROM (${sql.lit(from)}) TO (${sql.lit(from + DAY_MS)})`.execute(
        db,
      );
    } catch (err) {
      const code = (err as { code?: string }).code;
      // 42P07 duplicate table, 23505 catalog race between two creators: the partition exists.
      // 23514 / 42P17: rows of that day already sit in the default partition (they arrived before
      // this partition existed); they stay there and retention deletes them from it.
      if (code !== '42P07' && code !== '23505' && code !== '42P17' && code !== '23514') throw err;
    }
  }
}

/** Drops every day partition of `table` that ends at or before `beforeMs`; returns how many. */
export async function dropDayPartitionsBefore(db: Kysely<any>, table: string, beforeMs: number): Promise<number> {
  if (!partitionsByDay(db)) return 0;
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = ${table} AND p.relnamespace = current_schema()::regnamespace`.execute(db);
  const prefix = `${table}_d`;
  let dropped = 0;
  for (const { name } of rows) {
    if (!name.startsWith(prefix)) continue;
    const digits = name.slice(prefix.length);
    if (!/^\d{8}$/.test(digits)) continue;
    const start = Date.UTC(Number(digits.slice(0, 4)), Number(digits.slice(4, 6)) - 1, Number(digits.slice(6, 8)));
    if (start + DAY_MS > beforeMs) continue;
    await sql`DROP TABLE IF EXISTS ${sql.id(name)}`.execute(db);
    dropped++;
  }
  return dropped;
}

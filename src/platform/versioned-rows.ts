// Rows of the definitions guarded by a `version` (layers, holdouts): one table shape, so one set of
// queries. Keys are unique per environment; every change raises the version by one, applied only if
// the row is still at the version read (compare-and-swap that needs no lock on either engine).
import { isUniqueViolation } from '../db/constraint-errors.js';
import type { Executor } from '../db/transaction.js';
import type { VersionedRow, VersionedTable } from './versioned-row.js';

export type { VersionedRow, VersionedTable } from './versioned-row.js';

export async function keyTaken(db: Executor, table: VersionedTable, envId: string, key: string): Promise<boolean> {
  return (await db.selectFrom(table).select('id').where('env_id', '=', envId).where('key', '=', key).executeTakeFirst()) !== undefined;
}

/** Inserts a row at version 1; false when its key is taken in the environment. */
export async function insertVersioned(db: Executor, table: VersionedTable, row: VersionedRow): Promise<boolean> {
  if (await keyTaken(db, table, row.env_id, row.key)) return false;
  try {
    await db.insertInto(table).values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function findVersioned(db: Executor, table: VersionedTable, envId: string, id: string): Promise<VersionedRow | undefined> {
  return db.selectFrom(table).selectAll().where('env_id', '=', envId).where('id', '=', id).executeTakeFirst();
}

export async function listVersioned(db: Executor, table: VersionedTable, envId: string): Promise<VersionedRow[]> {
  return db.selectFrom(table).selectAll().where('env_id', '=', envId).orderBy('key').execute();
}

/** Writes `definition` as version `expected + 1` if the row is still at `expected`. */
export async function updateVersioned(db: Executor, table: VersionedTable, id: string, expected: number, definition: string, at: string): Promise<boolean> {
  const result = await db.updateTable(table).set({ version: expected + 1, definition, updated_at: at }).where('id', '=', id).where('version', '=', expected).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

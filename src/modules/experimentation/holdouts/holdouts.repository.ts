// Holdout rows, guarded by a `version`: keys are unique per environment; every change raises the
// version by one, applied only if the row is still at the version read (compare-and-swap that needs
// no lock on either engine). Layers keep the same shape in their own table and repository.
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { VersionedRow } from '../../../platform/versioned-row.js';
import type { HoldoutsTables } from './holdouts.table.js';

const own = ownTables<HoldoutsTables>();

export async function keyTaken(db: Executor, envId: string, key: string): Promise<boolean> {
  return (
    (await own(db)
      .selectFrom('holdouts')
      .select('id')
      .where('env_id', '=', envId)
      .where('key', '=', key)
      .executeTakeFirst()) !== undefined
  );
}

/** Inserts a holdout at version 1; false when its key is taken in the environment. */
export async function insertHoldout(db: Executor, row: VersionedRow): Promise<boolean> {
  if (await keyTaken(db, row.env_id, row.key)) return false;
  try {
    await own(db).insertInto('holdouts').values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function findHoldout(db: Executor, envId: string, id: string): Promise<VersionedRow | undefined> {
  return own(db).selectFrom('holdouts').selectAll().where('env_id', '=', envId).where('id', '=', id).executeTakeFirst();
}

export async function listHoldouts(db: Executor, envId: string): Promise<VersionedRow[]> {
  return own(db).selectFrom('holdouts').selectAll().where('env_id', '=', envId).orderBy('key').execute();
}

/** Writes `definition` as version `expected + 1` if the holdout is still at `expected`. */
export async function updateHoldout(
  db: Executor,
  id: string,
  expected: number,
  definition: string,
  at: string,
): Promise<boolean> {
  const result = await own(db)
    .updateTable('holdouts')
    .set({ version: expected + 1, definition, updated_at: at })
    .where('id', '=', id)
    .where('version', '=', expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

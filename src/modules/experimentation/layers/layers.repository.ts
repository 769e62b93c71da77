// Layer rows, guarded by a `version`: keys are unique per environment; every change raises the
// version by one, applied only if the row is still at the version read (compare-and-swap that needs
// no lock on either engine). Holdouts keep the same shape in their own table and repository.
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { VersionedRow } from '../../../platform/versioned-row.js';
import type { LayersTables } from './layers.table.js';

const own = ownTables<LayersTables>();

export async function keyTaken(db: Executor, envId: string, key: string): Promise<boolean> {
  return (
    (await own(db)
      .selectFrom('layers')
      .select('id')
      .where('env_id', '=', envId)
      .where('key', '=', key)
      .executeTakeFirst()) !== undefined
  );
}

/** Inserts a layer at version 1; false when its key is taken in the environment. */
export async function insertLayer(db: Executor, row: VersionedRow): Promise<boolean> {
  if (await keyTaken(db, row.env_id, row.key)) return false;
  try {
    await own(db).insertInto('layers').values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function findLayer(db: Executor, envId: string, id: string): Promise<VersionedRow | undefined> {
  return own(db).selectFrom('layers').selectAll().where('env_id', '=', envId).where('id', '=', id).executeTakeFirst();
}

export async function listLayers(db: Executor, envId: string): Promise<VersionedRow[]> {
  return own(db).selectFrom('layers').selectAll().where('env_id', '=', envId).orderBy('key').execute();
}

/** Writes `definition` as version `expected + 1` if the layer is still at `expected`. */
export async function updateLayer(
  db: Executor,
  id: string,
  expected: number,
  definition: string,
  at: string,
): Promise<boolean> {
  const result = await own(db)
    .updateTable('layers')
    .set({ version: expected + 1, definition, updated_at: at })
    .where('id', '=', id)
    .where('version', '=', expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

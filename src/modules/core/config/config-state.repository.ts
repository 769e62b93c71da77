import type { Executor } from '../../../db/transaction.js';
import { forUpdate } from '../../../db/row-locks.js';
import type { ConfigVersionsTable, VersionsTables } from './versions.table.js';
import {
  emptyState,
  parseStoredState,
  type CurrentConfig,
  type EnvironmentTarget,
  type VersionSnapshot,
} from './versions.model.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<VersionsTables>();

const EPOCH = new Date(0).toISOString();

/** Creates the environment's config row (version 0, empty) and its version-0 snapshot if missing. */
export async function ensureConfigRow(db: Executor, target: EnvironmentTarget): Promise<void> {
  const state = JSON.stringify(emptyState());
  const inserted = await own(db)
    .insertInto('environment_configs')
    .values({ env_id: target.envId, app_id: target.appId, version: 0, state, updated_at: EPOCH })
    .onConflict((oc) => oc.column('env_id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
    await own(db)
      .insertInto('config_versions')
      .values({
        env_id: target.envId,
        version: 0,
        app_id: target.appId,
        change_id: null,
        operation: 'environment.create',
        authority: JSON.stringify({ type: 'system' }),
        state,
        created_at: new Date().toISOString(),
      })
      .onConflict((oc) => oc.columns(['env_id', 'version']).doNothing())
      .execute();
  }
}

/**
 * Reads the current config and locks its row until the transaction ends. The row exists from the
 * environment's first change on, so it is locked first and created only when missing (a statement
 * less per change than creating it "if missing" every time; the insert takes no lock when it exists).
 */
export async function lockConfig(db: Executor, target: EnvironmentTarget): Promise<CurrentConfig> {
  const lock = () =>
    forUpdate(
      db,
      own(db).selectFrom('environment_configs').select(['version', 'state']).where('env_id', '=', target.envId),
    ).executeTakeFirst();
  let row = await lock();
  if (!row) {
    await ensureConfigRow(db, target);
    row = await lock();
  }
  if (!row) throw new Error(`environment config ${target.envId} vanished`);
  return { version: Number(row.version), state: parseStoredState(row.state) };
}

export async function readConfig(db: Executor, envId: string): Promise<CurrentConfig | null> {
  const row = await own(db)
    .selectFrom('environment_configs')
    .select(['version', 'state'])
    .where('env_id', '=', envId)
    .executeTakeFirst();
  return row ? { version: Number(row.version), state: parseStoredState(row.state) } : null;
}

/** Versions of every environment changed after `since` (the delivery cache's polling fallback). */
export async function changedSince(
  db: Executor,
  since: string,
): Promise<{ envId: string; version: number; updatedAt: string }[]> {
  const rows = await own(db)
    .selectFrom('environment_configs')
    .select(['env_id', 'version', 'updated_at'])
    .where('updated_at', '>', since)
    .execute();
  return rows.map((r) => ({ envId: r.env_id, version: Number(r.version), updatedAt: r.updated_at }));
}

export async function writeConfig(
  db: Executor,
  envId: string,
  version: number,
  state: string,
  at: string,
): Promise<void> {
  await own(db)
    .updateTable('environment_configs')
    .set({ version, state, updated_at: at })
    .where('env_id', '=', envId)
    .execute();
}

export async function insertVersion(db: Executor, row: ConfigVersionsTable): Promise<void> {
  await own(db).insertInto('config_versions').values(row).execute();
}

/** Keeps the newest `keep` versions and every version younger than `keepAfter`. */
export async function pruneVersions(
  db: Executor,
  envId: string,
  newest: number,
  keep: number,
  keepAfter: string,
): Promise<void> {
  await own(db)
    .deleteFrom('config_versions')
    .where('env_id', '=', envId)
    .where('version', '<=', newest - keep)
    .where('created_at', '<', keepAfter)
    .execute();
}

export function toSnapshot(row: ConfigVersionsTable): VersionSnapshot {
  return {
    version: Number(row.version),
    createdAt: row.created_at,
    changeId: row.change_id,
    operation: row.operation,
    authority: JSON.parse(row.authority),
    state: parseStoredState(row.state),
  };
}

// Reads of retained versions (the writes are config-state.repository.ts, through the store).
import type { Executor } from '../../../db/transaction.js';
import { toSnapshot } from './config-state.repository.js';
import type { VersionMeta, VersionSnapshot } from './versions.model.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { VersionsTables } from './versions.table.js';

const own = ownTables<VersionsTables>();

/** Retained versions up to `upTo`, newest first, without their (large) snapshots. */
export async function listVersions(db: Executor, envId: string, upTo: number, limit: number): Promise<VersionMeta[]> {
  const rows = await own(db)
    .selectFrom('config_versions')
    .select(['version', 'created_at', 'change_id', 'operation', 'authority'])
    .where('env_id', '=', envId)
    .where('version', '<=', upTo)
    .orderBy('version', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    version: Number(r.version),
    createdAt: r.created_at,
    changeId: r.change_id,
    operation: r.operation,
    authority: JSON.parse(r.authority),
  }));
}

export async function findVersion(db: Executor, envId: string, version: number): Promise<VersionSnapshot | undefined> {
  const row = await own(db)
    .selectFrom('config_versions')
    .selectAll()
    .where('env_id', '=', envId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row ? toSnapshot(row) : undefined;
}

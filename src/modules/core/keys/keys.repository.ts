// The api_keys table, and nothing else: an environment key's slug comes from the apps module
// (environmentSlugsOf), passed in by the service, so a renamed environment is never read stale here.
import { ownTables } from '../../../db/owned-tables.js';
import type { Executor } from '../../../db/transaction.js';
import type { ApiKeysTable, KeysTables } from './keys.table.js';
import type { KeyRecord, KeyType } from './keys.model.js';

const own = ownTables<KeysTables>();

export type KeyRow = ApiKeysTable;

/** The key as the API shows it; `envSlug` is its environment's slug (null for admin keys). */
export function toKeyRecord(row: KeyRow, envSlug: string | null): KeyRecord {
  return {
    id: row.id,
    type: row.type as KeyType,
    appId: row.app_id,
    env: envSlug,
    ...(row.name ? { name: row.name } : {}),
    prefix: row.prefix,
    status: row.status as KeyRecord['status'],
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

function selectKeys(db: Executor) {
  return own(db).selectFrom('api_keys').selectAll();
}

export async function insertKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await own(db).insertInto('api_keys').values(row).execute();
}

export async function findKeyById(db: Executor, id: string): Promise<KeyRow | undefined> {
  return selectKeys(db).where('id', '=', id).executeTakeFirst();
}

export async function findKeyByHash(db: Executor, hash: string): Promise<KeyRow | undefined> {
  return selectKeys(db).where('token_hash', '=', hash).executeTakeFirst();
}

export async function listKeys(db: Executor, appId: string, envId?: string): Promise<KeyRow[]> {
  let q = selectKeys(db).where('app_id', '=', appId);
  if (envId) q = q.where('env_id', '=', envId);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function markRevoked(db: Executor, id: string, at: string): Promise<boolean> {
  const r = await own(db)
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: at })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function touchKeys(db: Executor, usage: Map<string, string>): Promise<void> {
  for (const [id, at] of usage) {
    await own(db).updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}

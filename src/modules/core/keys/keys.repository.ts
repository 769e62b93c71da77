import type { Executor } from '../../../db/transaction.js';
import type { ApiKeysTable } from './keys.table.js';
import type { KeyRecord, KeyType } from './keys.model.js';

export type KeyRow = ApiKeysTable & { env_slug: string | null };

export function toKeyRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    type: row.type as KeyType,
    appId: row.app_id,
    env: row.env_slug,
    ...(row.name ? { name: row.name } : {}),
    prefix: row.prefix,
    status: row.status as KeyRecord['status'],
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

function selectKeys(db: Executor) {
  return db
    .selectFrom('api_keys')
    .leftJoin('environments', 'environments.id', 'api_keys.env_id')
    .selectAll('api_keys')
    .select('environments.slug as env_slug');
}

export async function insertKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findKeyById(db: Executor, id: string): Promise<KeyRow | undefined> {
  return selectKeys(db).where('api_keys.id', '=', id).executeTakeFirst();
}

export async function findKeyByHash(db: Executor, hash: string): Promise<KeyRow | undefined> {
  return selectKeys(db).where('api_keys.token_hash', '=', hash).executeTakeFirst();
}

export async function listKeys(db: Executor, appId: string, envId?: string): Promise<KeyRow[]> {
  let q = selectKeys(db).where('api_keys.app_id', '=', appId);
  if (envId) q = q.where('api_keys.env_id', '=', envId);
  return q.orderBy('api_keys.created_at', 'desc').orderBy('api_keys.id', 'desc').execute();
}

export async function markRevoked(db: Executor, id: string, at: string): Promise<boolean> {
  const r = await db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: at })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function touchKeys(db: Executor, usage: Map<string, string>): Promise<void> {
  for (const [id, at] of usage) {
    await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}

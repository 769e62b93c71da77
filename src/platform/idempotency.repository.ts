// The idempotency records (platform/idempotency.table.ts): Kysely queries only.
import type { Database } from '../db/database.js';
import type { Executor } from '../db/transaction.js';
import type { IdempotencyRecordsTable, IdempotencyTables } from './idempotency.table.js';
import { ownTables } from '../db/owned-tables.js';

const own = ownTables<IdempotencyTables>();

export type IdempotencyRecord = IdempotencyRecordsTable;

export async function findRecord(db: Executor, scope: string, key: string): Promise<IdempotencyRecord | undefined> {
  return own(db)
    .selectFrom('idempotency_records')
    .selectAll()
    .where('scope', '=', scope)
    .where('idem_key', '=', key)
    .executeTakeFirst();
}

/** Deletes a record that expired (only the expired one, if a new claim replaced it meanwhile). */
export async function deleteExpiredRecord(db: Executor, scope: string, key: string, expiresAt: string): Promise<void> {
  await own(db)
    .deleteFrom('idempotency_records')
    .where('scope', '=', scope)
    .where('idem_key', '=', key)
    .where('expires_at', '=', expiresAt)
    .execute();
}

/** Claims a key: a concurrent claim of the same key fails with a unique violation. */
export async function insertClaim(db: Executor, row: Database['idempotency_records']): Promise<void> {
  await own(db).insertInto('idempotency_records').values(row).execute();
}

export async function storeResponse(
  db: Executor,
  scope: string,
  key: string,
  response: Pick<IdempotencyRecord, 'status_code' | 'response_body' | 'encrypted' | 'replay_expires_at'>,
): Promise<void> {
  await own(db)
    .updateTable('idempotency_records')
    .set(response)
    .where('scope', '=', scope)
    .where('idem_key', '=', key)
    .execute();
}

export async function deleteExpired(db: Executor, at: string): Promise<number> {
  const result = await own(db).deleteFrom('idempotency_records').where('expires_at', '<=', at).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}

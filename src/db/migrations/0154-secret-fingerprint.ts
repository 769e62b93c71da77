// The fingerprint of the server secret (issue 19): every process sharing the database must run with
// the same ENSIGN_SECRET, or what one seals (export signing secrets, idempotent replays) another
// cannot open. The first process to start records it; the others compare (platform/secret-fingerprint.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_secret_fingerprint')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

// Erasure tombstones last as long as ingestion accepts events stamped before their cutoff (issue 18):
// 30 days after the cutoff, not 7. Tombstones still stored (expired ones included, as long as no
// purge has deleted them yet) get the longer expiry.
import { sql, type Kysely } from 'kysely';

const RAW_RETENTION_MS = 30 * 86_400_000;

export async function up(db: Kysely<any>): Promise<void> {
  await db
    .updateTable('telemetry_tombstones')
    .set({ expires_at: sql`cutoff + ${RAW_RETENTION_MS + 1}` })
    .execute();
}

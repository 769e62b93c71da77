// Monthly configuration-sync counters, one row per environment and UTC calendar month. Processes add
// their in-memory counts with atomic increments, so several of them can share one row.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('config_sync_counts')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('config_sync_counts_pk', ['env_id', 'month'])
    .execute();
}

// Configuration state per environment and its retained versions (full snapshots).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('environment_configs')
    .addColumn('env_id', 'text', (c) => c.primaryKey().references('environments.id'))
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('environment_configs_updated_idx')
    .on('environment_configs')
    .column('updated_at')
    .execute();

  await db.schema
    .createTable('config_versions')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('change_id', 'text')
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('authority', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('config_versions_pk', ['env_id', 'version'])
    .execute();
}

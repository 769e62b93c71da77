// Baselines of an experiment's primary metric (issue 12): a window's units, mean and variance, captured
// from telemetry or entered by hand, versioned per experiment and read by power analysis.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('experiment_baselines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('experiment_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('metric_id', 'text', (c) => c.notNull())
    .addColumn('metric_revision', 'integer', (c) => c.notNull())
    .addColumn('window_from', 'text', (c) => c.notNull())
    .addColumn('window_to', 'text', (c) => c.notNull())
    .addColumn('units', 'integer', (c) => c.notNull())
    .addColumn('mean', 'double precision', (c) => c.notNull())
    .addColumn('variance', 'double precision', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('captured_at', 'text', (c) => c.notNull())
    .execute();
  // Versions count per experiment; two concurrent captures cannot take the same one.
  await db.schema
    .createIndex('experiment_baselines_version_unique')
    .on('experiment_baselines')
    .columns(['experiment_id', 'version'])
    .unique()
    .execute();
}

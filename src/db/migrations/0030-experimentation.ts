// Experimentation definitions (issue 11): metrics and their immutable revisions, layers, holdouts,
// experiments with their revision history and iteration revisions. What a running experiment serves
// lives in the environment's composite config state (docs/decisions/0018); these tables hold the
// definitions behind it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('metrics')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('metrics_env_key_idx').on('metrics').columns(['env_id', 'key']).unique().execute();

  await db.schema
    .createTable('metric_revisions')
    .addColumn('metric_id', 'text', (c) => c.notNull().references('metrics.id'))
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('metric_revisions_pk', ['metric_id', 'revision'])
    .execute();

  for (const table of ['layers', 'holdouts'] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('app_id', 'text', (c) => c.notNull())
      .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('salt', 'text', (c) => c.notNull())
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_env_key_idx`).on(table).columns(['env_id', 'key']).unique().execute();
  }

  await db.schema
    .createTable('experiments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('experiments_env_key_idx')
    .on('experiments')
    .columns(['env_id', 'key'])
    .unique()
    .execute();

  await db.schema
    .createTable('experiment_revisions')
    .addColumn('experiment_id', 'text', (c) => c.notNull().references('experiments.id'))
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('experiment_revisions_pk', ['experiment_id', 'revision'])
    .execute();

  await db.schema
    .createTable('experiment_iterations')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('experiment_id', 'text', (c) => c.notNull().references('experiments.id'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('allocation', 'double precision', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('experiment_iterations_pk', ['id', 'revision'])
    .execute();
  await db.schema
    .createIndex('experiment_iterations_experiment_idx')
    .on('experiment_iterations')
    .columns(['experiment_id', 'number', 'revision'])
    .execute();
}

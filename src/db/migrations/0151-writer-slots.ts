// Writer slots (issue 24, decision 0048): on PostgreSQL every batch of an environment used to lock
// the environment's one watermark row and the rollup rows of the buckets it touched, so processes
// ingesting into one environment took turns. The watermark and the rollups gain a `slot` in their
// key: a process writes the rows of its own slot (PostgreSQL: one of 64, drawn at start; SQLite,
// which has one writer at a time anyway: always 0), and readers combine the slots (the newest
// watermark; rollups merged as parts of one bucket). Existing rows become slot 0.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

const ROLLUP_KEY = [
  'env_id',
  'bucket_start',
  'kind',
  'flag_key',
  'variant',
  'reason',
  'experiment_id',
  'iteration_id',
  'metric_key',
  'slot',
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await db.schema
      .alterTable('telemetry_watermarks')
      .addColumn('slot', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('telemetry_watermarks').dropConstraint('telemetry_watermarks_pkey').execute();
    await db.schema
      .alterTable('telemetry_watermarks')
      .addPrimaryKeyConstraint('telemetry_watermarks_pk', ['env_id', 'slot'])
      .execute();
    await db.schema
      .alterTable('telemetry_rollups')
      .addColumn('slot', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('telemetry_rollups').dropConstraint('telemetry_rollups_pk').execute();
    await db.schema
      .alterTable('telemetry_rollups')
      .addPrimaryKeyConstraint('telemetry_rollups_pk', [...ROLLUP_KEY])
      .execute();
    return;
  }
  // SQLite cannot change a primary key in place: the two tables are rebuilt.
  await db.schema
    .createTable('telemetry_watermarks_slotted')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_watermarks_pk', ['env_id', 'slot'])
    .execute();
  await sql`INSERT INTO telemetry_watermarks_slotted (env_id, slot, received_at, event_id) SELECT env_id, 0, received_at, event_id FROM telemetry_watermarks`.execute(
    db,
  );
  await db.schema.dropTable('telemetry_watermarks').execute();
  await db.schema.alterTable('telemetry_watermarks_slotted').renameTo('telemetry_watermarks').execute();

  await db.schema
    .createTable('telemetry_rollups_slotted')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('bucket_start', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('flag_key', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('experiment_id', 'text', (c) => c.notNull())
    .addColumn('iteration_id', 'text', (c) => c.notNull())
    .addColumn('metric_key', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addColumn('metric_count', 'bigint', (c) => c.notNull())
    .addColumn('metric_sum', 'double precision', (c) => c.notNull())
    .addColumn('metric_sum_sq', 'double precision', (c) => c.notNull())
    .addColumn('subjects', 'blob', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_rollups_pk', [...ROLLUP_KEY])
    .execute();
  await sql`INSERT INTO telemetry_rollups_slotted
    SELECT env_id, bucket_start, kind, flag_key, variant, reason, experiment_id, iteration_id, metric_key, 0, events, metric_count, metric_sum, metric_sum_sq, subjects, updated_at
    FROM telemetry_rollups`.execute(db);
  await db.schema.dropTable('telemetry_rollups').execute();
  await db.schema.alterTable('telemetry_rollups_slotted').renameTo('telemetry_rollups').execute();
  await db.schema
    .createIndex('telemetry_rollups_flag')
    .on('telemetry_rollups')
    .columns(['env_id', 'flag_key', 'bucket_start'])
    .execute();
  await db.schema
    .createIndex('telemetry_rollups_experiment')
    .on('telemetry_rollups')
    .columns(['env_id', 'experiment_id', 'bucket_start'])
    .execute();
}

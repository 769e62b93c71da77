// Telemetry: raw events (partitioned by day of event time on PostgreSQL, so retention drops whole
// partitions), their dedup keys, hourly rollups, the per-environment watermark and redeemed legacy
// cursors. Day partitions are created on demand (db/day-partitions.ts); the default partition
// catches anything that arrives before its day's partition exists.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  let events = db.schema
    .createTable('telemetry_events')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('targeting_key', 'text')
    .addColumn('flag_key', 'text')
    .addColumn('variant', 'text')
    .addColumn('value', 'text')
    .addColumn('reason', 'text')
    .addColumn('experiment_id', 'text')
    .addColumn('iteration_id', 'text')
    .addColumn('iteration_revision', 'integer')
    .addColumn('metric_key', 'text')
    .addColumn('metric_value', 'double precision')
    .addColumn('attributes', 'text');
  if (postgres) events = events.modifyEnd(sql`PARTITION BY RANGE (ts)`);
  await events.execute();
  if (postgres) await sql`CREATE TABLE telemetry_events_default PARTITION OF telemetry_events DEFAULT`.execute(db);
  await db.schema
    .createIndex('telemetry_events_env_ts')
    .on('telemetry_events')
    .columns(['env_id', 'ts', 'id'])
    .execute();

  await db.schema
    .createTable('telemetry_event_keys')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_event_keys_pk', ['env_id', 'id'])
    .execute();
  await db.schema.createIndex('telemetry_event_keys_ts').on('telemetry_event_keys').column('ts').execute();

  await db.schema
    .createTable('telemetry_rollups')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('bucket_start', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('flag_key', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('experiment_id', 'text', (c) => c.notNull())
    .addColumn('iteration_id', 'text', (c) => c.notNull())
    .addColumn('metric_key', 'text', (c) => c.notNull())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addColumn('metric_count', 'bigint', (c) => c.notNull())
    .addColumn('metric_sum', 'double precision', (c) => c.notNull())
    .addColumn('metric_sum_sq', 'double precision', (c) => c.notNull())
    .addColumn('subjects', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_rollups_pk', [
      'env_id',
      'bucket_start',
      'kind',
      'flag_key',
      'variant',
      'reason',
      'experiment_id',
      'iteration_id',
      'metric_key',
    ])
    .execute();
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

  await db.schema
    .createTable('telemetry_watermarks')
    .addColumn('env_id', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('insight_legacy_cursors')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('used_at', 'bigint', (c) => c.notNull())
    .execute();
}

// Raw events carry their own dedup key (issue 24, decision 0047).
// - SQLite: the event table is rebuilt WITHOUT ROWID with the primary key (env_id, id) and the
//   content digest, and telemetry_event_keys is dropped: an event is one row and two indexes instead
//   of two rows and six b-trees. An event without a key row (none is written so; kept rather than
//   lost) gets an empty digest: the same event sent again is then answered event_id_conflict, never
//   stored twice. Keys whose event is gone (migration 0130 deleted events with a
//   non-finite metric value, which ingestion now refuses before dedup) are not carried over.
// - PostgreSQL: the event table is partitioned by day, so a unique key there must include the event
//   time and cannot say "this id once per environment": the keys table stays the dedup key. The
//   table gains the (nullable) digest column so both engines store the same event row.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await db.schema.alterTable('telemetry_events').addColumn('content_hash', 'text').execute();
    return;
  }
  await db.schema
    .createTable('telemetry_events_keyed')
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
    .addColumn('attributes', 'text')
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_events_pk', ['env_id', 'id'])
    .modifyEnd(sql`WITHOUT ROWID`)
    .execute();
  await sql`INSERT INTO telemetry_events_keyed
    SELECT e.env_id, e.id, e.app_id, e.kind, e.ts, e.received_at, e.targeting_key, e.flag_key, e.variant, e.value, e.reason,
      e.experiment_id, e.iteration_id, e.iteration_revision, e.metric_key, e.metric_value, e.attributes, COALESCE(k.content_hash, '')
    FROM telemetry_events e LEFT JOIN telemetry_event_keys k ON k.env_id = e.env_id AND k.id = e.id`.execute(db);
  await db.schema.dropTable('telemetry_events').execute();
  await db.schema.dropTable('telemetry_event_keys').execute();
  await db.schema.alterTable('telemetry_events_keyed').renameTo('telemetry_events').execute();
  await db.schema
    .createIndex('telemetry_events_env_ts')
    .on('telemetry_events')
    .columns(['env_id', 'ts', 'id'])
    .execute();
  await db.schema
    .createIndex('telemetry_events_env_received')
    .on('telemetry_events')
    .columns(['env_id', 'received_at', 'id'])
    .execute();
}

// Export backfills as leased jobs with a stored record and resumable cursor (issue 13), and the index
// the export feed reads raw events by: arrival order per environment. Without it every scheduler
// pass and backfill page sorted the environment's whole retained window.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('export_backfills')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('destination_id', 'text', (c) => c.notNull())
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('from_ts', 'bigint', (c) => c.notNull())
    .addColumn('to_ts', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('deliveries', 'integer', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull())
    .addColumn('cursor_received_at', 'bigint', (c) => c.notNull())
    .addColumn('cursor_event_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema
    .createIndex('export_backfills_destination')
    .on('export_backfills')
    .columns(['destination_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('telemetry_events_env_received')
    .on('telemetry_events')
    .columns(['env_id', 'received_at', 'id'])
    .execute();
}

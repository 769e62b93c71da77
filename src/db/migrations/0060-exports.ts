// Raw telemetry export destinations (issue 13). Timestamps are RFC 3339 UTC text like every table.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('export_destinations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('kinds', 'text', (c) => c.notNull())
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('batch_size', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('secret_version', 'integer', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('failing_since', 'text')
    // Where the scheduler has read the environment's raw events up to (received_at, id).
    .addColumn('position_received_at', 'bigint', (c) => c.notNull())
    .addColumn('position_event_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('export_destinations_env_name_idx')
    .on('export_destinations')
    .columns(['env_id', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('export_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('destination_id', 'text', (c) => c.notNull().references('export_destinations.id'))
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // JSON array of the raw event ids the delivery carries (never the events: erasure and retention apply).
    .addColumn('event_ids', 'text', (c) => c.notNull())
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('first_event_at', 'text', (c) => c.notNull())
    .addColumn('last_event_at', 'text', (c) => c.notNull())
    .addColumn('last_attempt_at', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('export_deliveries_destination_idx')
    .on('export_deliveries')
    .columns(['destination_id', 'id'])
    .execute();
  await db.schema
    .createIndex('export_deliveries_status_idx')
    .on('export_deliveries')
    .columns(['destination_id', 'status'])
    .execute();
}

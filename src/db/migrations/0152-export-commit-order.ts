// The export feed in commit order (issue 19, decision 0036). Raw events get `feed_seq`, the
// sequence of the transaction that stored them: on PostgreSQL its transaction id (xid8, 64 bits,
// never wraps), on SQLite a counter raised inside the single writer's transaction (db/commit-sequence.ts). A destination's
// position becomes (feed_seq, event id). Rows stored before this migration, and positions taken
// before it, are mapped to `received_at - LEGACY_OFFSET`: negative, so below every new sequence, and
// in the order arrival gave them, so each destination resumes exactly where it stood.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

/** Larger than any millisecond timestamp Ensign will see (year 2286). */
const LEGACY_OFFSET = 10_000_000_000_000;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await db.schema.alterTable('telemetry_events').addColumn('feed_seq', 'bigint').execute();
  await db
    .updateTable('telemetry_events')
    .set({ feed_seq: sql`received_at - ${LEGACY_OFFSET}` })
    .execute();
  if (postgres) {
    // The default covers any writer that does not name the column; ingestion names it.
    await sql`ALTER TABLE telemetry_events ALTER COLUMN feed_seq SET DEFAULT (pg_current_xact_id()::text::bigint)`.execute(
      db,
    );
    await sql`ALTER TABLE telemetry_events ALTER COLUMN feed_seq SET NOT NULL`.execute(db);
  } else {
    await db.schema
      .createTable('commit_sequence')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('commit_sequence').values({ id: 1, value: 0 }).execute();
  }
  await db.schema
    .createIndex('telemetry_events_env_feed')
    .on('telemetry_events')
    .columns(['env_id', 'feed_seq', 'id'])
    .execute();

  await db.schema
    .alterTable('export_destinations')
    .addColumn('position_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db
    .updateTable('export_destinations')
    .set({ position_seq: sql`position_received_at - ${LEGACY_OFFSET}` })
    .execute();
}

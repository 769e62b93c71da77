// PostgreSQL's dedup keys (telemetry_event_keys) are read by (env_id, id) on every batch and by ts
// only once a day, by the retention purge. Their b-tree on ts cost every stored event a third index
// entry in a random place (measured: dropping it, +5-8 % events/s and -10 % of PostgreSQL's CPU per
// event); a BRIN index keeps the purge from reading the whole table for a few pages of upkeep, since
// keys are written in about event-time order (decision 0064). SQLite has no keys table (0150).
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await db.schema.dropIndex('telemetry_event_keys_ts').execute();
  await sql`CREATE INDEX telemetry_event_keys_ts ON telemetry_event_keys USING brin (ts)`.execute(db);
}

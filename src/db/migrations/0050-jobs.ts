// Leased background jobs (src/jobs): aggregation runs, export deliveries, erasures and retention purges
// are rows here, leased by whichever process is free, so on PostgreSQL any process runs them and none
// runs one twice. Timestamps are RFC 3339 UTC text like every other table (decision 0001).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('dedupe_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  // The runners' two questions: which waiting jobs are due, and which leases have expired.
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['state', 'run_at']).execute();
  await db.schema.createIndex('jobs_lease_idx').on('jobs').columns(['state', 'lease_expires_at']).execute();
  // "At most one queued job for this key": unique among queued jobs only, so a running job of the same
  // key does not stop the next one being queued (new work arrived while it ran).
  await db.schema
    .createIndex('jobs_dedupe_queued_unique')
    .on('jobs')
    .column('dedupe_key')
    .unique()
    .where(sql.ref('state'), '=', sql.lit('queued'))
    .execute();
  await db.schema.createIndex('jobs_finished_idx').on('jobs').columns(['finished_at']).execute();
}

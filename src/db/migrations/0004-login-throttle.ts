// Failed-login counters shared by every process on the database, so N processes allow no more
// attempts than one. One row per throttled key (a hash of the e-mail or the client address).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('login_failures')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('reset_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_failures_reset_at').on('login_failures').column('reset_at').execute();
}

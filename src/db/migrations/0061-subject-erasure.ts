// Subject erasure (issue 13): receipts of erasure requests and the tombstones that drop an erased
// subject's late events at ingestion. Neither stores the subject in clear: the receipt holds it
// sealed only until the job has run, the tombstone a keyed hash.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subject_erasures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('subject_sealed', 'text')
    .addColumn('cutoff', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema
    .createTable('telemetry_tombstones')
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('subject_hash', 'text', (c) => c.notNull())
    .addColumn('cutoff', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_tombstones_pk', ['env_id', 'subject_hash'])
    .execute();
}

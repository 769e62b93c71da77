// Export deliveries are claimed by one owner at a time, until a deadline (issue 19, decision 0037):
// `claim_owner` names the attempt sending it (the deliver job and its attempt), `claimed_until` when
// the claim lapses if that owner dies or stalls. Rows left `delivering` by an older version have no
// claim and may be claimed at once.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('export_deliveries').addColumn('claim_owner', 'text').execute();
  await db.schema.alterTable('export_deliveries').addColumn('claimed_until', 'text').execute();
}

// The authority workflow (issue 9): immutable proposals, approvals and execution receipts. Rows are
// only ever inserted; a proposal applies at most once (receipts.proposal_id is unique).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('proposals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('env_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('base_version', 'integer', (c) => c.notNull())
    .addColumn('change', 'text', (c) => c.notNull())
    .addColumn('preview', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('proposed_by', 'text', (c) => c.notNull())
    .addColumn('proposer_user_id', 'text')
    .addColumn('required_approvals', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('proposals_env_idx').on('proposals').columns(['app_id', 'env_id', 'id']).execute();

  await db.schema
    .createTable('approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('proposal_id', 'text', (c) => c.notNull().references('proposals.id'))
    .addColumn('approver_user_id', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('approvals_proposal_user_unique', ['proposal_id', 'approver_user_id'])
    .execute();

  await db.schema
    .createTable('receipts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('proposal_id', 'text', (c) => c.notNull().unique().references('proposals.id'))
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('applied_version', 'integer', (c) => c.notNull())
    .addColumn('change_id', 'text')
    .addColumn('state_digest', 'text', (c) => c.notNull())
    .addColumn('approvals', 'text', (c) => c.notNull())
    .addColumn('executed_by', 'text', (c) => c.notNull())
    .addColumn('executed_at', 'text', (c) => c.notNull())
    .execute();
}

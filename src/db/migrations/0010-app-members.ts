// App members with a role (owner, editor, viewer) and the environment policy of the authority
// workflow (issue 9). Every existing app gets its creator as its first owner.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_members')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_members_pk', ['app_id', 'user_id'])
    .execute();
  await db.schema.createIndex('app_members_user_idx').on('app_members').columns(['user_id', 'app_id']).execute();
  await sql`INSERT INTO app_members (app_id, user_id, role, created_at, updated_at)
    SELECT id, owner_user_id, 'owner', created_at, created_at FROM apps`.execute(db);

  await db.schema
    .alterTable('environments')
    .addColumn('required_approvals', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Context of a journal entry beyond its diff (a rollback's target version and plan digest, the
  // proposal and approvers of an authority execution); JSON, null when there is none.
  await db.schema.alterTable('changes').addColumn('context', 'text').execute();
}

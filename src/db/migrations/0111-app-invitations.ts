// Invitations to an app (issue 18, CONTRACT.md §8): an owner invites an address with a role, the
// person signed up with that address accepts or declines; membership starts on acceptance. At most
// one pending invitation per app and address (a partial unique index, on both engines).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id'))
    // Lower-cased and trimmed, as sign-up stores addresses.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    // pending, accepted, declined or revoked; an expired invitation stays pending past expires_at.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .execute();
  await db.schema
    .createIndex('app_invitations_pending')
    .on('app_invitations')
    .columns(['app_id', 'email'])
    .unique()
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.createIndex('app_invitations_email').on('app_invitations').columns(['email', 'status']).execute();
}

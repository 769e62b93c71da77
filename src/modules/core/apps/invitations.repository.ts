// Invitation rows: who was invited to which app with which role, and how it ended.
import type { Executor } from '../../../db/transaction.js';
import type { AppInvitationsTable, AppsTables } from './apps.table.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<AppsTables>();

export async function findInvitation(db: Executor, id: string): Promise<AppInvitationsTable | undefined> {
  return own(db).selectFrom('app_invitations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The pending invitation of an address to an app (at most one: a partial unique index). */
export async function findPending(
  db: Executor,
  appId: string,
  email: string,
): Promise<AppInvitationsTable | undefined> {
  return own(db)
    .selectFrom('app_invitations')
    .selectAll()
    .where('app_id', '=', appId)
    .where('email', '=', email)
    .where('status', '=', 'pending')
    .executeTakeFirst();
}

export async function insertInvitation(db: Executor, row: AppInvitationsTable): Promise<void> {
  await own(db).insertInto('app_invitations').values(row).execute();
}

/** A second invite of the same address: the new role and a fresh 7 days, same id. */
export async function renewInvitation(
  db: Executor,
  id: string,
  fields: Pick<AppInvitationsTable, 'role' | 'invited_by' | 'created_at' | 'expires_at'>,
): Promise<void> {
  await own(db)
    .updateTable('app_invitations')
    .set(fields)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Ends a pending invitation; false when it was no longer pending (another request ended it first). */
export async function resolveInvitation(
  db: Executor,
  id: string,
  status: 'accepted' | 'declined' | 'revoked',
  at: string,
): Promise<boolean> {
  const result = await own(db)
    .updateTable('app_invitations')
    .set({ status, resolved_at: at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** An app's invitations still open at `now`, oldest first. */
export async function listOpenForApp(db: Executor, appId: string, now: string): Promise<AppInvitationsTable[]> {
  return own(db)
    .selectFrom('app_invitations')
    .selectAll()
    .where('app_id', '=', appId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The invitations open at `now` for an address, with the app each opens, oldest first. */
export async function listOpenForEmail(
  db: Executor,
  email: string,
  now: string,
): Promise<(AppInvitationsTable & { app_name: string; app_slug: string })[]> {
  return own(db)
    .selectFrom('app_invitations')
    .innerJoin('apps', 'apps.id', 'app_invitations.app_id')
    .selectAll('app_invitations')
    .select(['apps.name as app_name', 'apps.slug as app_slug'])
    .where('app_invitations.email', '=', email)
    .where('app_invitations.status', '=', 'pending')
    .where('app_invitations.expires_at', '>', now)
    .orderBy('app_invitations.created_at')
    .orderBy('app_invitations.id')
    .execute();
}

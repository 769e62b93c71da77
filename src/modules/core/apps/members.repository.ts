// Membership rows: who is in an app with which role.
import { forUpdate } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppMembersTable, AppsTable } from './apps.table.js';

export async function findMember(db: Executor, appId: string, userId: string): Promise<AppMembersTable | undefined> {
  return db.selectFrom('app_members').selectAll().where('app_id', '=', appId).where('user_id', '=', userId).executeTakeFirst();
}

export async function listMembers(db: Executor, appId: string): Promise<(AppMembersTable & { email: string })[]> {
  return db
    .selectFrom('app_members')
    .innerJoin('users', 'users.id', 'app_members.user_id')
    .selectAll('app_members')
    .select('users.email')
    .where('app_members.app_id', '=', appId)
    .orderBy('app_members.created_at')
    .orderBy('app_members.user_id')
    .execute();
}

/** The apps a user is a member of, with the role, oldest first. */
export async function listAppsOfMember(db: Executor, userId: string): Promise<(AppsTable & { role: string })[]> {
  return db
    .selectFrom('app_members')
    .innerJoin('apps', 'apps.id', 'app_members.app_id')
    .selectAll('apps')
    .select('app_members.role')
    .where('app_members.user_id', '=', userId)
    .orderBy('apps.created_at')
    .orderBy('apps.id')
    .execute();
}

export async function insertMember(db: Executor, row: AppMembersTable): Promise<void> {
  await db.insertInto('app_members').values(row).execute();
}

export async function updateRole(db: Executor, appId: string, userId: string, role: string, at: string): Promise<void> {
  await db.updateTable('app_members').set({ role, updated_at: at }).where('app_id', '=', appId).where('user_id', '=', userId).execute();
}

export async function deleteMember(db: Executor, appId: string, userId: string): Promise<void> {
  await db.deleteFrom('app_members').where('app_id', '=', appId).where('user_id', '=', userId).execute();
}

export async function countOwners(db: Executor, appId: string): Promise<number> {
  const row = await db.selectFrom('app_members').select((eb) => eb.fn.countAll<number>().as('n')).where('app_id', '=', appId).where('role', '=', 'owner').executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Serialises membership changes of one app on PostgreSQL (two owners demoting each other at once
 * must not leave none); SQLite has one writer anyway.
 */
export async function lockApp(db: Executor, appId: string): Promise<void> {
  await forUpdate(db, db.selectFrom('apps').select('id').where('id', '=', appId)).execute();
}

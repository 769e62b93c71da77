// Membership rows: who is in an app with which role.
import { forUpdate } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppMembersTable, AppsTable, AppsTables } from './apps.table.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<AppsTables>();

export async function findMember(db: Executor, appId: string, userId: string): Promise<AppMembersTable | undefined> {
  return own(db)
    .selectFrom('app_members')
    .selectAll()
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** The members of an app, oldest first; their addresses are the users' (auth's read model). */
export async function listMembers(db: Executor, appId: string): Promise<AppMembersTable[]> {
  return own(db)
    .selectFrom('app_members')
    .selectAll()
    .where('app_id', '=', appId)
    .orderBy('created_at')
    .orderBy('user_id')
    .execute();
}

/** The apps a user is a member of, with the role, oldest first. */
export async function listAppsOfMember(db: Executor, userId: string): Promise<(AppsTable & { role: string })[]> {
  return own(db)
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
  await own(db).insertInto('app_members').values(row).execute();
}

export async function updateRole(db: Executor, appId: string, userId: string, role: string, at: string): Promise<void> {
  await own(db)
    .updateTable('app_members')
    .set({ role, updated_at: at })
    .where('app_id', '=', appId)
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteMember(db: Executor, appId: string, userId: string): Promise<void> {
  await own(db).deleteFrom('app_members').where('app_id', '=', appId).where('user_id', '=', userId).execute();
}

export async function countOwners(db: Executor, appId: string): Promise<number> {
  const row = await own(db)
    .selectFrom('app_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('app_id', '=', appId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Serialises membership changes of one app on PostgreSQL (two owners demoting each other at once
 * must not leave none); SQLite has one writer anyway.
 */
export async function lockApp(db: Executor, appId: string): Promise<void> {
  await forUpdate(db, own(db).selectFrom('apps').select('id').where('id', '=', appId)).execute();
}

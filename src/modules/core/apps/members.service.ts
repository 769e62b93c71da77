// App members: people join by accepting an owner's invitation (invitations.service.ts); owners
// change their role or remove them. The last owner stays (409 last_owner), so an app is never left
// without someone who can manage it. Each change is journaled in the same transaction.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess, Role } from '../../../platform/app-access.js';
import { conflict, notFound } from '../../../platform/errors.js';
import { nowIso } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import { emailOfUser, emailsOfUsers } from '../auth/index.js';
import { authorityOf, type DiffEntry, type JournalService, type JournalSource } from '../journal/index.js';
import type { Member } from './apps.model.js';
import type { AppMembersTable } from './apps.table.js';
import * as repo from './members.repository.js';

export interface MembersService {
  list(principal: Principal, appId: string): Promise<Member[]>;
  setRole(
    trx: Executor,
    principal: Principal,
    appId: string,
    userId: string,
    role: Role,
    source: JournalSource,
  ): Promise<Member>;
  remove(trx: Executor, principal: Principal, appId: string, userId: string, source: JournalSource): Promise<void>;
}

const toMember = (r: {
  user_id: string;
  email: string;
  role: string;
  created_at: string;
  updated_at: string;
}): Member => ({
  userId: r.user_id,
  email: r.email,
  role: r.role as Role,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const lastOwner = () =>
  conflict('last_owner', 'This is the last owner of the app; an app always keeps one.', {
    resolution: 'Make another member an owner first, then change or remove this one.',
  });

/** An app's members with their addresses, oldest first; a member whose user is gone is left out. */
async function membersWithEmails(executor: Executor, appId: string): Promise<Member[]> {
  const rows = await repo.listMembers(executor, appId);
  const emails = await emailsOfUsers(
    executor,
    rows.map((r) => r.user_id),
  );
  return rows.flatMap((r) => withEmail(r, emails.get(r.user_id)));
}

const withEmail = (row: AppMembersTable, email: string | undefined): Member[] =>
  email === undefined ? [] : [toMember({ ...row, email })];

/** One member of an app with the address; undefined when not a member (or the user is gone). */
export async function memberWithEmail(executor: Executor, appId: string, userId: string): Promise<Member | undefined> {
  const row = await repo.findMember(executor, appId, userId);
  return row && withEmail(row, await emailOfUser(executor, userId))[0];
}

export function createMembersService(deps: {
  db: Kysely<Database>;
  access: AppAccess;
  journal: JournalService;
}): MembersService {
  const { db, access, journal } = deps;

  async function memberOf(trx: Executor, appId: string, userId: string): Promise<Member> {
    const found = await memberWithEmail(trx, appId, userId);
    if (!found) throw notFound(`Member ${userId} of app ${appId}`);
    return found;
  }

  async function record(
    trx: Executor,
    principal: Principal,
    appId: string,
    operation: string,
    userId: string,
    entry: DiffEntry,
    source: JournalSource,
  ) {
    await journal.record(trx, {
      appId,
      env: null,
      operation,
      source,
      resourceType: 'member',
      resourceId: userId,
      authority: authorityOf(principal),
      beforeVersion: null,
      afterVersion: null,
      diff: [entry],
    });
  }

  /**
   * A lock on the app, then the owner check: concurrent changes cannot remove every owner, and an
   * owner demoted a moment ago is checked against the committed demotion.
   */
  async function asOwner(trx: Executor, principal: Principal, appId: string) {
    await repo.lockApp(trx, appId);
    await access.requireApp(principal, appId, 'members', trx);
  }

  return {
    async list(principal, appId) {
      await access.requireApp(principal, appId, 'read');
      return membersWithEmails(db, appId);
    },

    async setRole(trx, principal, appId, userId, role, source) {
      await asOwner(trx, principal, appId);
      const existing = await memberOf(trx, appId, userId);
      if (existing.role === role) return existing;
      if (existing.role === 'owner' && (await repo.countOwners(trx, appId)) <= 1) throw lastOwner();
      await repo.updateRole(trx, appId, userId, role, nowIso());
      await record(
        trx,
        principal,
        appId,
        'member.update',
        userId,
        { op: 'change', resourceType: 'member', key: userId, path: '/role', before: existing.role, after: role },
        source,
      );
      return memberOf(trx, appId, userId);
    },

    async remove(trx, principal, appId, userId, source) {
      await asOwner(trx, principal, appId);
      const existing = await memberOf(trx, appId, userId);
      if (existing.role === 'owner' && (await repo.countOwners(trx, appId)) <= 1) throw lastOwner();
      await repo.deleteMember(trx, appId, userId);
      await record(
        trx,
        principal,
        appId,
        'member.remove',
        userId,
        { op: 'remove', resourceType: 'member', key: userId, path: '', before: { role: existing.role } },
        source,
      );
    },
  };
}

// Invitations (issue 18, CONTRACT.md §8): an owner invites an address with a role and gets the same
// 202 whether or not anyone has signed up with it (nothing is looked up but the app's own members,
// whom owners see anyway). The person signed up with the address sees the invitation and accepts
// it (membership starts then) or declines it. Invitations expire 7 days after they are made; owners
// list and revoke them. Decisions (docs/authority.md):
// - inviting an address again while its invitation is pending renews it: same id, the new role, 7
//   more days;
// - inviting a member is 409 member_exists (their address is on the members list already);
// - an invitation is found only by its invitee: another user's, or one no longer pending, is 404;
//   an expired one is 409 invitation_expired to its invitee.
// Every change is journaled in the same transaction, naming people by id, never by address.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import type { AppAccess, Role } from '../../../platform/app-access.js';
import { conflict, notFound } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal, UserPrincipal } from '../../../platform/principal.js';
import { emailOfUser, userIdOfEmail } from '../auth/index.js';
import { authorityOf, type DiffEntry, type JournalService, type JournalSource } from '../journal/index.js';
import {
  INVITATION_TTL_MS,
  type AppInvitation,
  type Invitation,
  type Member,
  type ReceivedInvitation,
} from './apps.model.js';
import type { AppInvitationsTable } from './apps.table.js';
import * as repo from './invitations.repository.js';
import * as members from './members.repository.js';
import { memberWithEmail } from './members.service.js';

export interface InvitationsService {
  /** Owners: invites `email` with `role` (202 whoever the address belongs to, if anyone). */
  invite(
    trx: Executor,
    principal: Principal,
    appId: string,
    input: { email: string; role: Role },
    source: JournalSource,
  ): Promise<Invitation>;
  /** Owners: the app's invitations still open. */
  listForApp(principal: Principal, appId: string): Promise<AppInvitation[]>;
  /** Owners: ends a pending invitation (expired ones too). */
  revoke(
    trx: Executor,
    principal: Principal,
    appId: string,
    invitationId: string,
    source: JournalSource,
  ): Promise<void>;
  /** The caller's open invitations. */
  listMine(principal: UserPrincipal): Promise<ReceivedInvitation[]>;
  /** The caller joins the app with the invitation's role. */
  accept(
    trx: Executor,
    principal: UserPrincipal,
    invitationId: string,
    source: JournalSource,
  ): Promise<{ appId: string; member: Member }>;
  decline(trx: Executor, principal: UserPrincipal, invitationId: string, source: JournalSource): Promise<void>;
}

export interface InvitationsServiceDeps {
  db: Kysely<Database>;
  access: AppAccess;
  journal: JournalService;
  now: () => number;
}

const normalised = (email: string) => email.trim().toLowerCase();

const invitationOf = (r: AppInvitationsTable): Invitation => ({
  id: r.id,
  appId: r.app_id,
  role: r.role as Role,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});

export function createInvitationsService(deps: InvitationsServiceDeps): InvitationsService {
  const { db, access, journal } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function record(
    trx: Executor,
    principal: Principal,
    appId: string,
    operation: string,
    resource: { type: string; id: string },
    entry: DiffEntry,
    source: JournalSource,
    context?: Record<string, unknown>,
  ) {
    await journal.record(trx, {
      appId,
      env: null,
      operation,
      source,
      resourceType: resource.type,
      resourceId: resource.id,
      authority: authorityOf(principal),
      beforeVersion: null,
      afterVersion: null,
      diff: [entry],
      ...(context ? { context } : {}),
    });
  }

  /** The same lock and check as every membership change (members.service.ts). */
  async function asOwner(trx: Executor, principal: Principal, appId: string) {
    await members.lockApp(trx, appId);
    await access.requireApp(principal, appId, 'members', trx);
  }

  /** The caller's pending invitation `id`: 404 for anyone else's or one that has ended. */
  async function invitationFor(trx: Executor, principal: UserPrincipal, id: string): Promise<AppInvitationsTable> {
    const row = await repo.findInvitation(trx, id);
    const email = row ? await emailOfUser(trx, principal.userId) : undefined;
    if (!row || row.status !== 'pending' || email === undefined || row.email !== email)
      throw notFound(`Invitation ${id}`);
    return row;
  }

  const expired = (row: AppInvitationsTable) =>
    conflict('invitation_expired', `Invitation ${row.id} expired at ${row.expires_at}.`, {
      resolution: 'Ask an owner of the app to invite you again.',
    });

  return {
    async invite(trx, principal, appId, input, source) {
      await asOwner(trx, principal, appId);
      const email = normalised(input.email);
      const userId = await userIdOfEmail(trx, email);
      if (userId !== undefined && (await members.findMember(trx, appId, userId))) {
        throw conflict('member_exists', 'This address belongs to a member of the app already.', {
          resolution: 'Change their role with PATCH /api/v1/apps/{appId}/members/{userId}.',
        });
      }
      const now = deps.now();
      const fields = {
        role: input.role,
        invited_by: principal.type === 'cli' ? principal.userId : '',
        created_at: iso(now),
        expires_at: iso(now + INVITATION_TTL_MS),
      };
      const pending = await repo.findPending(trx, appId, email);
      let row: AppInvitationsTable;
      if (pending) {
        await repo.renewInvitation(trx, pending.id, fields);
        row = { ...pending, ...fields };
        await record(
          trx,
          principal,
          appId,
          'member.invite',
          { type: 'invitation', id: row.id },
          {
            op: 'change',
            resourceType: 'invitation',
            key: row.id,
            path: '',
            before: { role: pending.role, expiresAt: pending.expires_at },
            after: { role: row.role, expiresAt: row.expires_at },
          },
          source,
        );
      } else {
        row = { id: newId('inv'), app_id: appId, email, status: 'pending', resolved_at: null, ...fields };
        try {
          await repo.insertInvitation(trx, row);
        } catch (err) {
          // Membership changes of an app are serialised (asOwner), so only a bug gets here.
          if (isUniqueViolation(err))
            throw conflict('invitation_exists', 'This address has a pending invitation to the app.', {
              resolution: 'Send the invitation again.',
            });
          throw err;
        }
        await record(
          trx,
          principal,
          appId,
          'member.invite',
          { type: 'invitation', id: row.id },
          {
            op: 'add',
            resourceType: 'invitation',
            key: row.id,
            path: '',
            after: { role: row.role, expiresAt: row.expires_at },
          },
          source,
        );
      }
      return invitationOf(row);
    },

    async listForApp(principal, appId) {
      await access.requireApp(principal, appId, 'members');
      const rows = await repo.listOpenForApp(db, appId, iso(deps.now()));
      return rows.map((r) => ({ ...invitationOf(r), email: r.email, invitedBy: r.invited_by }));
    },

    async revoke(trx, principal, appId, invitationId, source) {
      await asOwner(trx, principal, appId);
      const row = await repo.findInvitation(trx, invitationId);
      if (
        !row ||
        row.app_id !== appId ||
        !(await repo.resolveInvitation(trx, invitationId, 'revoked', iso(deps.now())))
      )
        throw notFound(`Invitation ${invitationId} of app ${appId}`);
      await record(
        trx,
        principal,
        appId,
        'invitation.revoke',
        { type: 'invitation', id: row.id },
        {
          op: 'remove',
          resourceType: 'invitation',
          key: row.id,
          path: '',
          before: { role: row.role, expiresAt: row.expires_at },
        },
        source,
      );
    },

    async listMine(principal) {
      const email = await emailOfUser(db, principal.userId);
      if (email === undefined) return [];
      const rows = await repo.listOpenForEmail(db, email, iso(deps.now()));
      return rows.map((r) => ({ ...invitationOf(r), appName: r.app_name, appSlug: r.app_slug }));
    },

    async accept(trx, principal, invitationId, source) {
      const found = await invitationFor(trx, principal, invitationId);
      await members.lockApp(trx, found.app_id);
      // Read again under the lock: a revoke or a second accept may have ended it meanwhile.
      const row = await invitationFor(trx, principal, invitationId);
      const now = deps.now();
      if (Date.parse(row.expires_at) <= now) throw expired(row);
      if (await members.findMember(trx, row.app_id, principal.userId)) {
        throw conflict('member_exists', 'You are a member of this app already.', {
          resolution:
            'Decline the invitation; an owner changes roles with PATCH /api/v1/apps/{appId}/members/{userId}.',
        });
      }
      const at = iso(now);
      await members.insertMember(trx, {
        app_id: row.app_id,
        user_id: principal.userId,
        role: row.role,
        created_at: at,
        updated_at: at,
      });
      await repo.resolveInvitation(trx, row.id, 'accepted', at);
      await record(
        trx,
        principal,
        row.app_id,
        'member.join',
        { type: 'member', id: principal.userId },
        { op: 'add', resourceType: 'member', key: principal.userId, path: '', after: { role: row.role } },
        source,
        { invitationId: row.id },
      );
      const member = (await memberWithEmail(trx, row.app_id, principal.userId))!;
      return { appId: row.app_id, member };
    },

    async decline(trx, principal, invitationId, source) {
      const row = await invitationFor(trx, principal, invitationId);
      if (!(await repo.resolveInvitation(trx, row.id, 'declined', iso(deps.now()))))
        throw notFound(`Invitation ${invitationId}`);
      await record(
        trx,
        principal,
        row.app_id,
        'member.decline',
        { type: 'invitation', id: row.id },
        { op: 'remove', resourceType: 'invitation', key: row.id, path: '', before: { role: row.role } },
        source,
      );
    },
  };
}

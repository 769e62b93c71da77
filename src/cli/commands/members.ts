// members list / invite (add) / invitations / revoke / set-role / remove: /api/v1/apps/{appId}/members
// and /invitations (issues 9 and 18). The invitee's side is `ensign invitations` (invitations.ts).
import { Option, type Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { emit, printLine, printTable } from '../output.js';
import { idempotencyKey } from './idempotency.js';

interface Member {
  userId: string;
  email: string;
  role: string;
  createdAt: string;
  updatedAt: string;
}

interface Invitation {
  id: string;
  appId: string;
  role: string;
  expiresAt: string;
  createdAt: string;
}

interface AppInvitation extends Invitation {
  email: string;
  invitedBy: string;
}

const ROLES = ['owner', 'editor', 'viewer'];
const path = (app: string, userId?: string) =>
  `/api/v1/apps/${encodeURIComponent(app)}/members${userId ? `/${encodeURIComponent(userId)}` : ''}`;
const invitationsPath = (app: string, id?: string) =>
  `/api/v1/apps/${encodeURIComponent(app)}/invitations${id ? `/${encodeURIComponent(id)}` : ''}`;

export function registerMembersCommands(program: Command): void {
  const members = program
    .command('members')
    .description('the people of an app and their roles (owner, editor, viewer)');

  scopeOptions(members.command('list').description('list the members of an app'), 'app').action(
    action(async (ctx, o: { app: string }) => {
      const res = await ctx.client.get<{ members: Member[] }>(path(o.app));
      emit(ctx.json, res.body, () =>
        printTable(
          ['USER', 'EMAIL', 'ROLE', 'SINCE'],
          res.body.members.map((m) => [m.userId, m.email, m.role, m.createdAt]),
          'No members.',
        ),
      );
    }),
  );

  scopeOptions(
    members
      .command('invite <email>')
      .alias('add')
      .description('invite an address to an app with a role (owners only); they join by accepting'),
    'app',
  )
    .addOption(new Option('--role <role>', 'their role once they accept').choices(ROLES).makeOptionMandatory())
    .option('--idempotency-key <key>', 'default: a fresh one')
    .action(
      action(async (ctx, email: string, o: { app: string; role: string; idempotencyKey?: string }) => {
        const res = await ctx.client.post<{ invitation: Invitation }>(
          path(o.app),
          { email, role: o.role },
          { headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) } },
        );
        const invitation = res.body.invitation;
        emit(ctx.json, res.body, () => {
          printLine(
            `Invited ${email} as ${invitation.role}: invitation ${invitation.id}, open until ${invitation.expiresAt}.`,
          );
          printLine(
            `They join once signed up with that address and accepted: ensign invitations accept ${invitation.id}`,
          );
        });
      }),
    );

  scopeOptions(
    members.command('invitations').description('list the pending invitations of an app (owners only)'),
    'app',
  ).action(
    action(async (ctx, o: { app: string }) => {
      const res = await ctx.client.get<{ invitations: AppInvitation[] }>(invitationsPath(o.app));
      emit(ctx.json, res.body, () =>
        printTable(
          ['INVITATION', 'EMAIL', 'ROLE', 'INVITED BY', 'EXPIRES'],
          res.body.invitations.map((i) => [i.id, i.email, i.role, i.invitedBy, i.expiresAt]),
          'No pending invitations.',
        ),
      );
    }),
  );

  scopeOptions(
    members.command('revoke <invitationId>').description('revoke a pending invitation (owners only)'),
    'app',
  ).action(
    action(async (ctx, invitationId: string, o: { app: string }) => {
      await ctx.client.delete(invitationsPath(o.app, invitationId));
      emit(ctx.json, { revoked: invitationId }, () => printLine(`Revoked ${invitationId}.`));
    }),
  );

  scopeOptions(members.command('set-role <userId>').description('change the role of a member (owners only)'), 'app')
    .addOption(new Option('--role <role>', 'the new role').choices(ROLES).makeOptionMandatory())
    .action(
      action(async (ctx, userId: string, o: { app: string; role: string }) => {
        const res = await ctx.client.patch<{ member: Member }>(path(o.app, userId), { role: o.role });
        emit(ctx.json, res.body, () => printLine(`${res.body.member.email} is now ${res.body.member.role}.`));
      }),
    );

  scopeOptions(
    members.command('remove <userId>').description('remove a member from an app (owners only)'),
    'app',
  ).action(
    action(async (ctx, userId: string, o: { app: string }) => {
      await ctx.client.request('DELETE', path(o.app, userId));
      emit(ctx.json, { removed: userId }, () => printLine(`Removed ${userId}.`));
    }),
  );
}

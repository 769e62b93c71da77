// invitations list / accept / decline: the invitee's side of /api/v1/invitations (issue 18). Owners
// invite and revoke with `ensign members invite|invitations|revoke` (members.ts).
import type { Command } from 'commander';
import { action } from '../context.js';
import { emit, printLine, printTable } from '../output.js';

interface ReceivedInvitation {
  id: string;
  appId: string;
  appName: string;
  appSlug: string;
  role: string;
  expiresAt: string;
  createdAt: string;
}

const at = (id: string, verb?: string) =>
  `/api/v1/invitations${id ? `/${encodeURIComponent(id)}` : ''}${verb ? `/${verb}` : ''}`;

export function registerInvitationsCommands(program: Command): void {
  const invitations = program
    .command('invitations')
    .description('invitations to apps addressed to you: list, accept, decline');

  invitations
    .command('list')
    .description('list the pending invitations addressed to you')
    .action(
      action(async (ctx) => {
        const res = await ctx.client.get<{ invitations: ReceivedInvitation[] }>(at(''));
        emit(ctx.json, res.body, () =>
          printTable(
            ['INVITATION', 'APP', 'NAME', 'ROLE', 'EXPIRES'],
            res.body.invitations.map((i) => [i.id, i.appId, i.appName, i.role, i.expiresAt]),
            'No pending invitations.',
          ),
        );
      }),
    );

  invitations
    .command('accept <invitationId>')
    .description('accept an invitation: you become a member of its app with its role')
    .action(
      action(async (ctx, id: string) => {
        const res = await ctx.client.post<{ appId: string; member: { userId: string; role: string } }>(
          at(id, 'accept'),
          undefined,
        );
        emit(ctx.json, res.body, () => printLine(`You are now ${res.body.member.role} of ${res.body.appId}.`));
      }),
    );

  invitations
    .command('decline <invitationId>')
    .description('decline an invitation')
    .action(
      action(async (ctx, id: string) => {
        await ctx.client.post(at(id, 'decline'), undefined);
        emit(ctx.json, { declined: id }, () => printLine(`Declined ${id}.`));
      }),
    );
}

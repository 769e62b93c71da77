// members list / add / set-role / remove: /api/v1/apps/{appId}/members (issue 9).
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

const ROLES = ['owner', 'editor', 'viewer'];
const path = (app: string, userId?: string) => `/api/v1/apps/${encodeURIComponent(app)}/members${userId ? `/${encodeURIComponent(userId)}` : ''}`;

export function registerMembersCommands(program: Command): void {
  const members = program.command('members').description('the people of an app and their roles (owner, editor, viewer)');

  scopeOptions(members.command('list').description('list the members of an app'), 'app')
    .action(action(async (ctx, o: { app: string }) => {
      const res = await ctx.client.get<{ members: Member[] }>(path(o.app));
      emit(ctx.json, res.body, () => printTable(['USER', 'EMAIL', 'ROLE', 'SINCE'], res.body.members.map((m) => [m.userId, m.email, m.role, m.createdAt]), 'No members.'));
    }));

  scopeOptions(members.command('add <email>').description('add a signed-up user to an app (owners only)'), 'app')
    .addOption(new Option('--role <role>', 'their role').choices(ROLES).makeOptionMandatory())
    .option('--idempotency-key <key>', 'default: a fresh one')
    .action(action(async (ctx, email: string, o: { app: string; role: string; idempotencyKey?: string }) => {
      const res = await ctx.client.post<{ member: Member }>(path(o.app), { email, role: o.role }, { headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) } });
      emit(ctx.json, res.body, () => printLine(`Added ${res.body.member.email} (${res.body.member.userId}) as ${res.body.member.role}.`));
    }));

  scopeOptions(members.command('set-role <userId>').description('change the role of a member (owners only)'), 'app')
    .addOption(new Option('--role <role>', 'the new role').choices(ROLES).makeOptionMandatory())
    .action(action(async (ctx, userId: string, o: { app: string; role: string }) => {
      const res = await ctx.client.patch<{ member: Member }>(path(o.app, userId), { role: o.role });
      emit(ctx.json, res.body, () => printLine(`${res.body.member.email} is now ${res.body.member.role}.`));
    }));

  scopeOptions(members.command('remove <userId>').description('remove a member from an app (owners only)'), 'app')
    .action(action(async (ctx, userId: string, o: { app: string }) => {
      await ctx.client.request('DELETE', path(o.app, userId));
      emit(ctx.json, { removed: userId }, () => printLine(`Removed ${userId}.`));
    }));
}

// envs list: GET /api/v1/envs?appId=
import type { Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { emit, printTable } from '../output.js';

interface ListEnvsResponse {
  environments: { id: string; name: string; slug: string; appId: string; createdAt: string }[];
}

export function registerEnvsCommands(program: Command): void {
  const envs = program.command('envs').description('list the environments of an app');
  scopeOptions(envs.command('list'), 'app')
    .description('list the environments of an app')
    .action(action(async (ctx, options: { app: string }) => {
      const res = await ctx.client.get<ListEnvsResponse>('/api/v1/envs', { query: { appId: options.app } });
      emit(ctx.json, res.body, () =>
        printTable(['SLUG', 'NAME', 'ID', 'CREATED'], res.body.environments.map((e) => [e.slug, e.name, e.id, e.createdAt]), 'No environments.'),
      );
    }));
}

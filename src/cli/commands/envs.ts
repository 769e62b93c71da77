// envs list / policy: GET and PATCH /api/v1/envs
import type { Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { parseInteger } from '../input.js';
import { emit, printLine, printTable } from '../output.js';

interface Environment {
  id: string;
  name: string;
  slug: string;
  appId: string;
  createdAt: string;
  policy?: { requiredApprovals: number };
}

interface ListEnvsResponse {
  environments: Environment[];
}

export function registerEnvsCommands(program: Command): void {
  const envs = program.command('envs').description('list the environments of an app and set their approval policy');
  scopeOptions(envs.command('list'), 'app')
    .description('list the environments of an app')
    .action(
      action(async (ctx, options: { app: string }) => {
        const res = await ctx.client.get<ListEnvsResponse>('/api/v1/envs', { query: { appId: options.app } });
        emit(ctx.json, res.body, () =>
          printTable(
            ['SLUG', 'NAME', 'ID', 'APPROVALS', 'CREATED'],
            res.body.environments.map((e) => [e.slug, e.name, e.id, e.policy?.requiredApprovals ?? 0, e.createdAt]),
            'No environments.',
          ),
        );
      }),
    );

  scopeOptions(envs.command('policy'), 'app+env')
    .description(
      'set how many approvals configuration changes of an environment need (owners only; 0 allows direct writes)',
    )
    .requiredOption('--required-approvals <n>', '0 to 5')
    .action(
      action(async (ctx, o: { app: string; env: string; requiredApprovals: string }) => {
        const requiredApprovals = parseInteger('--required-approvals', o.requiredApprovals);
        const res = await ctx.client.patch<{ environment: Environment }>('/api/v1/envs', {
          appId: o.app,
          env: o.env,
          requiredApprovals,
        });
        emit(ctx.json, res.body, () =>
          printLine(
            `${res.body.environment.slug}: changes need ${res.body.environment.policy?.requiredApprovals ?? 0} approval(s).`,
          ),
        );
      }),
    );
}

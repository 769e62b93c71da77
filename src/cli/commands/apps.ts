// apps list (GET /api/v1/apps) and apps create (POST /api/v1/apps, one-time tokens in the answer).
import type { Command } from 'commander';
import { action } from '../context.js';
import { emit, note, printLine, printTable } from '../output.js';
import { idempotencyKey } from './idempotency.js';

interface IssuedKey {
  id: string;
  type: string;
  env: string | null;
  prefix: string;
  token: string;
}

interface CreateAppResponse {
  app: { id: string; name: string; slug: string; createdAt: string };
  environments: { id: string; slug: string; name: string }[];
  keys: IssuedKey[];
  adminKey: IssuedKey;
}

interface ListAppsResponse {
  apps: {
    id: string;
    name: string;
    slug: string;
    role?: string;
    createdAt: string;
    environments: { slug: string }[];
  }[];
}

export function registerAppsCommands(program: Command): void {
  const apps = program.command('apps').description('list and create apps');

  apps
    .command('list')
    .description('list the apps you own or are a member of, with your role and their environments')
    .action(
      action(async (ctx) => {
        const res = await ctx.client.get<ListAppsResponse>('/api/v1/apps');
        emit(ctx.json, res.body, () =>
          printTable(
            ['ID', 'SLUG', 'NAME', 'ENVIRONMENTS', 'CREATED', 'ROLE'],
            res.body.apps.map((a) => [
              a.id,
              a.slug,
              a.name,
              a.environments.map((e) => e.slug).join(','),
              a.createdAt,
              a.role ?? '',
            ]),
            'No apps yet: create one with `ensign apps create <name> --slug <slug>`.',
          ),
        );
      }),
    );

  apps
    .command('create <name>')
    .description(
      'create an app with its dev, staging and prod environments, an sdk key per environment and an admin key',
    )
    .requiredOption('--slug <slug>', 'lower-case letters, digits and single hyphens, 2 to 40 characters')
    .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)')
    .action(
      action(async (ctx, name: string, options: { slug: string; idempotencyKey?: string }) => {
        const key = idempotencyKey(options.idempotencyKey);
        const res = await ctx.client.post<CreateAppResponse>(
          '/api/v1/apps',
          { name, slug: options.slug },
          { headers: { 'idempotency-key': key } },
        );
        const replayed = res.headers.get('idempotent-replayed') === 'true';
        emit(ctx.json, res.body, () => {
          const { app, environments, keys, adminKey } = res.body;
          printLine(`Created app ${app.name} (${app.slug}), id ${app.id}${replayed ? ' [replayed]' : ''}.`);
          printLine(`Environments: ${environments.map((e) => e.slug).join(', ')}`);
          printLine('');
          printTable(
            ['TYPE', 'ENV', 'KEY ID', 'TOKEN'],
            [...keys, adminKey].map((k) => [k.type, k.env ?? '(app)', k.id, k.token]),
            '',
            { maxCellWidth: Infinity },
          );
        });
        note('');
        note('WARNING: these tokens are shown once and cannot be read again. Store them in a secret manager now.');
        note(`(Idempotency-Key ${key}: rerun with --idempotency-key ${key} within 15 minutes to see the same answer.)`);
      }),
    );
}

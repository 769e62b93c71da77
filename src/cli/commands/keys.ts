// keys list / create / revoke: GET, POST and PATCH /api/v1/keys.
import { Option, type Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { emit, note, printLine, printPairs, printTable } from '../output.js';
import { idempotencyKey } from './idempotency.js';

interface KeyRecord {
  id: string;
  type: 'sdk' | 'pub' | 'admin';
  appId: string;
  env: string | null;
  name?: string;
  prefix: string;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys').description('list, create and revoke the keys of an app');

  scopeOptions(keys.command('list'), 'app')
    .description('list the keys of an app, newest first (never their tokens)')
    .option('--env <env>', 'only the keys of this environment')
    .action(
      action(async (ctx, options: { app: string; env?: string }) => {
        const res = await ctx.client.get<{ keys: KeyRecord[] }>('/api/v1/keys', {
          query: { appId: options.app, env: options.env },
        });
        emit(ctx.json, res.body, () =>
          printTable(
            ['ID', 'TYPE', 'ENV', 'NAME', 'PREFIX', 'STATUS', 'CREATED', 'LAST USED'],
            res.body.keys.map((k) => [
              k.id,
              k.type,
              k.env ?? '(app)',
              k.name,
              k.prefix,
              k.status,
              k.createdAt,
              k.lastUsedAt ?? 'never',
            ]),
            'No keys.',
          ),
        );
      }),
    );

  scopeOptions(keys.command('create'), 'app')
    .description('create a key; its token is shown once')
    .addOption(
      new Option('--type <type>', 'sdk (server), pub (client, read-only) or admin (app management)')
        .choices(['sdk', 'pub', 'admin'])
        .makeOptionMandatory(),
    )
    .option('--env <env>', 'environment slug (required for sdk and pub keys, not allowed for admin keys)')
    .option('--name <name>', 'a label to recognise the key by')
    .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)')
    .action(
      action(
        async (ctx, options: { app: string; type: string; env?: string; name?: string; idempotencyKey?: string }) => {
          const key = idempotencyKey(options.idempotencyKey);
          const body = { appId: options.app, type: options.type, env: options.env, name: options.name };
          const res = await ctx.client.post<{ key: KeyRecord & { token: string } }>('/api/v1/keys', body, {
            headers: { 'idempotency-key': key },
          });
          emit(ctx.json, res.body, () => {
            const k = res.body.key;
            printPairs([
              ['id', k.id],
              ['type', k.type],
              ['env', k.env ?? '(app)'],
              ['name', k.name],
              ['prefix', k.prefix],
              ['created', k.createdAt],
            ]);
            printLine('');
            printLine(`token: ${k.token}`);
          });
          note('');
          note('WARNING: the token is shown once and cannot be read again. Store it in a secret manager now.');
          note(
            `(Idempotency-Key ${key}: rerun with --idempotency-key ${key} within 15 minutes to see the same answer.)`,
          );
        },
      ),
    );

  keys
    .command('revoke <keyId>')
    .description('revoke a key (irreversible); it is refused from the next request on')
    .action(
      action(async (ctx, keyId: string) => {
        const res = await ctx.client.patch<{ key: KeyRecord }>('/api/v1/keys', { keyId, action: 'revoke' });
        emit(ctx.json, res.body, () =>
          printLine(`Key ${res.body.key.id} (${res.body.key.prefix}…) revoked at ${res.body.key.revokedAt}.`),
        );
      }),
    );
}

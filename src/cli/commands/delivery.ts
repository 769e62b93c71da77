// What applications see, through an environment key: config pull (GET /api/v1/config with sdk_,
// /api/v1/public-config with pub_) and eval (POST /api/v1/evaluate with sdk_).
import type { Command } from 'commander';
import { action } from '../context.js';
import { UsageError } from '../errors.js';
import { parseJsonOption, quoteEtag } from '../input.js';
import { emit, note, printJson, printPairs, show } from '../output.js';

const envKey = (command: Command, what: string) => command.requiredOption('--key <token>', what);

export function registerDeliveryCommands(program: Command): void {
  const config = program.command('config').description('fetch configuration documents as an application does');

  envKey(
    config
      .command('pull')
      .description('fetch the legacy configuration document (sdk_ → /api/v1/config, pub_ → /api/v1/public-config)'),
    'environment key: sdk_… or pub_…',
  )
    .option(
      '--etag <etag>',
      'send If-None-Match (quotes added when the shell stripped them); "not modified" when unchanged',
    )
    .option('--public', 'use /api/v1/public-config whatever the key prefix')
    .action(
      action(async (ctx, o: { key: string; etag?: string; public?: boolean }) => {
        const publicRoute = o.public || o.key.startsWith('pub_');
        const path = publicRoute ? '/api/v1/public-config' : '/api/v1/config';
        const headers: Record<string, string> = o.etag ? { 'if-none-match': quoteEtag(o.etag) } : {};
        const res = await ctx.client.get(path, { token: o.key, headers, accept: [304] });
        const etag = res.headers.get('etag');
        const remaining = res.headers.get('x-sync-quota-remaining');
        if (res.status === 304) {
          note(`not modified${etag ? ` (ETag ${etag})` : ''}`);
          return;
        }
        printJson(res.body);
        if (etag) note(`ETag: ${etag}`);
        if (remaining !== null && !ctx.json)
          note(`config syncs left this month: ${remaining}/${res.headers.get('x-sync-quota-limit') ?? '?'}`);
      }),
    );

  envKey(
    program.command('eval <flag>').description('evaluate a flag remotely for a context (POST /api/v1/evaluate)'),
    'server key: sdk_…',
  )
    .option('--context <json>', 'evaluation context, e.g. \'{"targetingKey":"user-42","country":"NO"}\'', '{}')
    .action(
      action(async (ctx, flag: string, o: { key: string; context: string }) => {
        const context = parseJsonOption('--context', o.context);
        if (!context || typeof context !== 'object' || Array.isArray(context))
          throw new UsageError('--context must be a JSON object');
        const res = await ctx.client.post<Record<string, unknown>>(
          '/api/v1/evaluate',
          { flagKey: flag, context },
          { token: o.key },
        );
        emit(ctx.json, res.body, () => {
          const body = res.body && typeof res.body === 'object' ? res.body : { value: res.body };
          printPairs(Object.entries(body).map(([k, v]) => [k, show(v)]));
        });
      }),
    );
}

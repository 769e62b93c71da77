// advanced show / impact / inspect: GET /api/v1/advanced-config, POST …/impact and …/inspect.
import type { Command } from 'commander';
import { action, resolveScope, scopeOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { quoteEtag, readJsonFile } from '../input.js';
import { note, printJson } from '../output.js';

export function registerAdvancedCommands(program: Command): void {
  const advanced = program.command('advanced').description('the composed advanced configuration (core schema v1)');

  scopeOptions(advanced.command('show'))
    .description('show the advanced configuration document of an environment')
    .option('--etag <etag>', 'send If-None-Match; "not modified" when unchanged')
    .action(
      action(async (ctx, o: { app: string; env: string; etag?: string }) => {
        const headers: Record<string, string> = o.etag ? { 'if-none-match': quoteEtag(o.etag) } : {};
        const res = await ctx.client.get('/api/v1/advanced-config', {
          query: { appId: o.app, env: o.env },
          headers,
          accept: [304],
        });
        const etag = res.headers.get('etag');
        if (res.status === 304) {
          note(`not modified${etag ? ` (ETag ${etag})` : ''}`);
          return;
        }
        printJson(res.body);
        if (etag) note(`ETag: ${etag}`);
      }),
    );

  for (const [name, what] of [
    ['impact', 'affected flags, dependencies and visibility impact of proposed advanced resources'],
    ['inspect', 'inspect a proposed advanced configuration (strict inspection request, at most 64 KiB)'],
  ] as const) {
    advanced
      .command(name)
      .description(what)
      .requiredOption('--file <path>', 'JSON request body; its appId and env may be left out')
      .option('--app <app>', "app id (app_…) or slug (default: the file's appId, else the app saved by `ensign use`)")
      .option('--env <env>', "environment slug (default: the file's env, else the environment saved by `ensign use`)")
      .action(
        action(async (ctx, o: { file: string; app?: string; env?: string }) => {
          const { value } = readJsonFile(o.file);
          if (!value || typeof value !== 'object' || Array.isArray(value))
            throw new UsageError(`${o.file} must hold a JSON object`);
          const body = value as Record<string, unknown>;
          const fromFile = (field: string) => (typeof body[field] === 'string' ? (body[field] as string) : undefined);
          // Options first, then the file, then `ensign use`: the file's values stay usable as they were.
          const scope = await resolveScope(
            ctx,
            { app: o.app ?? fromFile('appId'), env: o.env ?? fromFile('env') },
            'app+env',
          );
          const res = await ctx.client.post(`/api/v1/advanced-config/${name}`, {
            ...body,
            appId: scope.app,
            env: scope.env,
          });
          printJson(res.body);
        }),
      );
  }
}

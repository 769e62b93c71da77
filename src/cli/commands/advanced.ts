// advanced show / impact / inspect: GET /api/v1/advanced-config, POST …/impact and …/inspect.
import type { Command } from 'commander';
import { action } from '../context.js';
import { readJsonFile } from '../input.js';
import { note, printJson } from '../output.js';

export function registerAdvancedCommands(program: Command): void {
  const advanced = program.command('advanced').description('the composed advanced configuration (core schema v1)');

  advanced
    .command('show')
    .description('show the advanced configuration document of an environment')
    .requiredOption('--app <appId>', 'app id (app_…)')
    .requiredOption('--env <env>', 'environment slug')
    .option('--etag <etag>', 'send If-None-Match; "not modified" when unchanged')
    .action(action(async (ctx, o: { app: string; env: string; etag?: string }) => {
      const headers: Record<string, string> = o.etag ? { 'if-none-match': o.etag } : {};
      const res = await ctx.client.get('/api/v1/advanced-config', { query: { appId: o.app, env: o.env }, headers, accept: [304] });
      const etag = res.headers.get('etag');
      if (res.status === 304) {
        note(`not modified${etag ? ` (ETag ${etag})` : ''}`);
        return;
      }
      printJson(res.body);
      if (etag) note(`ETag: ${etag}`);
    }));

  for (const [name, what] of [
    ['impact', 'affected flags, dependencies and visibility impact of proposed advanced resources'],
    ['inspect', 'inspect a proposed advanced configuration (strict inspection request, at most 64 KiB)'],
  ] as const) {
    advanced
      .command(name)
      .description(what)
      .requiredOption('--file <path>', 'JSON request body')
      .action(action(async (ctx, o: { file: string }) => {
        const { value } = readJsonFile(o.file);
        const res = await ctx.client.post(`/api/v1/advanced-config/${name}`, value);
        printJson(res.body);
      }));
  }
}

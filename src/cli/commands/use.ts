// use <app> [--env <env>]: saves a default app (id or slug) and environment for the current server in
// defaults.json next to the credentials; commands taking --app/--env fall back to them.
import type { Command } from 'commander';
import { action, findApp } from '../context.js';
import { defaultsPath, saveDefaults } from '../credentials.js';
import { UsageError } from '../errors.js';
import { emit, printLine } from '../output.js';

export function registerUseCommand(program: Command): void {
  program
    .command('use <app>')
    .description('save a default app (id or slug) and environment; --app and --env then become optional')
    .option('--env <env>', 'default environment slug (dev, staging, prod, …)')
    .action(
      action(async (ctx, app: string, o: { env?: string }) => {
        const found = await findApp(ctx, app);
        if (o.env !== undefined && !found.environments.some((e) => e.slug === o.env)) {
          throw new UsageError(
            `app ${found.slug} has no environment "${o.env}"`,
            `Its environments: ${found.environments.map((e) => e.slug).join(', ')}.`,
          );
        }
        const defaults = { url: ctx.url, app: found.id, appSlug: found.slug, env: o.env ?? null };
        saveDefaults(defaults);
        emit(ctx.json, defaults, () =>
          printLine(
            `Default app ${found.slug} (${found.id})${o.env ? `, environment ${o.env}` : ', no default environment'} for ${ctx.url}; saved in ${defaultsPath()}.`,
          ),
        );
      }),
    );
}

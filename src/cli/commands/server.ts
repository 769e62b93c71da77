// Operator commands that run the server side in this process, on the same ENSIGN_* variables as
// `npm start`: serve, migrate, admin plan. Server modules are loaded only when these run, so the
// HTTP commands stay quick to start.
import { Argument, type Command } from 'commander';
import { action } from '../context.js';
import { CliError, EXIT_API } from '../errors.js';
import { emit, printLine } from '../output.js';

async function openServerDatabase() {
  const [{ loadConfig }, { createDb }] = await Promise.all([
    import('../../config.js'),
    import('../../db/create-db.js'),
  ]);
  const config = loadConfig();
  return { config, handle: createDb(config.databaseUrl) };
}

export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description(
      'start the Ensign server (same as `npm start`; reads ENSIGN_HOST, ENSIGN_PORT, ENSIGN_DATA_DIR, ENSIGN_DATABASE_URL, …)',
    )
    .action(
      action(async () => {
        const { startServer } = await import('../../main.js');
        await startServer(undefined, { handleSignals: true });
      }),
    );

  program
    .command('migrate')
    .description('apply the pending database migrations to the configured database')
    .action(
      action(async (ctx) => {
        const { migrateToLatest } = await import('../../db/migrate.js');
        const { handle } = await openServerDatabase();
        try {
          const applied = await migrateToLatest(handle.db);
          emit(ctx.json, { database: handle.dialect, applied }, () => {
            if (applied.length === 0) printLine(`The ${handle.dialect} database is up to date.`);
            else for (const name of applied) printLine(`applied ${name}`);
          });
        } finally {
          await handle.close();
        }
      }),
    );

  const admin = program.command('admin').description("operator tasks on the server's database");
  admin
    .command('plan')
    .description("set the plan of a user (quotas follow the owner's plan)")
    .argument('<email>', "the user's e-mail")
    .addArgument(new Argument('<plan>', 'free or pro').choices(['free', 'pro']))
    .action(
      action(async (ctx, email: string, plan: string) => {
        const { createAuthService } = await import('../../modules/core/auth/index.js');
        const { config, handle } = await openServerDatabase();
        try {
          await createAuthService(handle.db, config).setPlan(email, plan);
        } catch (err) {
          const e = err as { statusCode?: number; message?: string };
          if (e.statusCode === 404)
            throw new CliError(
              e.message ?? `no user with e-mail ${email}`,
              EXIT_API,
              "The user signs up first with `ensign login --sign-up`; check ENSIGN_DATA_DIR / ENSIGN_DATABASE_URL point at the server's database.",
            );
          if (/no such table|does not exist/i.test(e.message ?? ''))
            throw new CliError(e.message ?? 'database not migrated', EXIT_API, 'Run `ensign migrate` first.');
          throw err;
        } finally {
          await handle.close();
        }
        emit(ctx.json, { email, plan }, () => printLine(`${email} is now on the ${plan} plan.`));
      }),
    );
}

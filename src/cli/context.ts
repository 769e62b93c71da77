// Resolves the global options every command shares: --json, --url / ENSIGN_URL, and the token from
// ENSIGN_TOKEN or the credentials file (sent only to the server it was issued by).
import type { Command } from 'commander';
import {
  credentialsPath,
  loadCredentials,
  loadDefaults,
  type StoredCredentials,
  type StoredDefaults,
} from './credentials.js';
import { UsageError } from './errors.js';
import { ApiClient } from './http-client.js';
import { cliIo } from './io.js';
import { note } from './output.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface CliContext {
  json: boolean;
  url: string;
  client: ApiClient;
  /** The saved login, if any (whatever server it belongs to). */
  saved: StoredCredentials | null;
  credentialsFile: string;
  /** The default app and environment saved by `ensign use` for this server, if any. */
  defaults: StoredDefaults | null;
}

export const normaliseUrl = (url: string) => url.trim().replace(/\/+$/, '');

export function contextOf(command: Command): CliContext {
  const opts = command.optsWithGlobals() as { json?: boolean; url?: string };
  const credentialsFile = credentialsPath();
  let saved: StoredCredentials | null = null;
  try {
    saved = loadCredentials(credentialsFile);
  } catch (err) {
    note(`warning: ${(err as Error).message}; ignoring it (\`ensign login\` rewrites it)`);
  }
  const { env } = cliIo();
  const url = normaliseUrl(opts.url || env.ENSIGN_URL || saved?.url || DEFAULT_URL);
  const envToken = env.ENSIGN_TOKEN?.trim();
  const token = envToken || (saved && normaliseUrl(saved.url) === url ? saved.token : undefined);
  let defaults: StoredDefaults | null = null;
  try {
    defaults = loadDefaults();
  } catch (err) {
    note(`warning: ${(err as Error).message}; ignoring it`);
  }
  if (defaults && normaliseUrl(defaults.url) !== url) defaults = null;
  return { json: !!opts.json, url, client: new ApiClient({ baseUrl: url, token }), saved, credentialsFile, defaults };
}

export interface AppSummary {
  id: string;
  slug: string;
  name: string;
  environments: { slug: string }[];
}

/** Finds an app by id (app_…) or slug among the caller's apps; a clear error when none matches. */
export async function findApp(ctx: CliContext, idOrSlug: string): Promise<AppSummary> {
  const res = await ctx.client.get<{ apps: AppSummary[] }>('/api/v1/apps');
  const field = idOrSlug.startsWith('app_') ? 'id' : 'slug';
  const app = res.body.apps.find((a) => a[field] === idOrSlug);
  if (!app) throw new UsageError(`no app has the ${field} "${idOrSlug}"`, 'List your apps with `ensign apps list`.');
  return app;
}

type ScopeNeed = 'app' | 'app+env';
const scopeNeeds = new WeakMap<Command, ScopeNeed>();

/**
 * Adds --app (id or slug) and, for 'app+env', --env to a command. action() fills them from the
 * defaults of `ensign use` when omitted and turns a slug into the app id, so every command takes
 * the same values.
 */
export function scopeOptions(command: Command, need: ScopeNeed = 'app+env'): Command {
  command.option('--app <app>', 'app id (app_…) or slug (default: the app saved by `ensign use`)');
  if (need === 'app+env')
    command.option('--env <env>', 'environment slug (default: the environment saved by `ensign use`)');
  scopeNeeds.set(command, need);
  return command;
}

/** The app id and environment for a command: given values first, then the saved defaults. */
export async function resolveScope(
  ctx: CliContext,
  given: { app?: string; env?: string },
  need: ScopeNeed,
): Promise<{ app: string; env?: string }> {
  const app = given.app ?? ctx.defaults?.app;
  if (!app)
    throw new UsageError(
      'no app given',
      'Pass --app <id or slug>, or save a default with `ensign use <app> [--env <env>]`.',
    );
  const appId = app.startsWith('app_') ? app : (await findApp(ctx, app)).id;
  if (need === 'app') return { app: appId, env: given.env };
  // The saved environment belongs to the saved app: it is not applied to another one.
  const env = given.env ?? (ctx.defaults && ctx.defaults.app === appId ? (ctx.defaults.env ?? undefined) : undefined);
  if (!env)
    throw new UsageError(
      'no environment given',
      'Pass --env <env>, or save a default with `ensign use <app> --env <env>`.',
    );
  return { app: appId, env };
}

/** Runs a command action with its context; errors propagate to main, which prints them. */
export function action<A extends unknown[]>(fn: (ctx: CliContext, ...args: A) => Promise<void> | void) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const ctx = contextOf(command);
    const need = scopeNeeds.get(command);
    const options = args[args.length - 2] as { app?: unknown; env?: string } | undefined;
    if (need) {
      Object.assign(options!, await resolveScope(ctx, options as { app?: string; env?: string }, need));
    } else if (options && typeof options.app === 'string' && !options.app.startsWith('app_')) {
      // Commands with a required --app of their own take a slug as well.
      options.app = (await findApp(ctx, options.app)).id;
    }
    await fn(ctx, ...(args.slice(0, -1) as A));
  };
}

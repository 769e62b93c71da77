// Resolves the global options every command shares: --json, --url / ENSIGN_URL, and the token from
// ENSIGN_TOKEN or the credentials file (sent only to the server it was issued by).
import type { Command } from 'commander';
import { credentialsPath, loadCredentials, type StoredCredentials } from './credentials.js';
import { ApiClient } from './http-client.js';
import { note } from './output.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface CliContext {
  json: boolean;
  url: string;
  client: ApiClient;
  /** The saved login, if any (whatever server it belongs to). */
  saved: StoredCredentials | null;
  credentialsFile: string;
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
  const url = normaliseUrl(opts.url || process.env.ENSIGN_URL || saved?.url || DEFAULT_URL);
  const envToken = process.env.ENSIGN_TOKEN?.trim();
  const token = envToken || (saved && normaliseUrl(saved.url) === url ? saved.token : undefined);
  return { json: !!opts.json, url, client: new ApiClient({ baseUrl: url, token }), saved, credentialsFile };
}

/** Runs a command action with its context; errors propagate to main, which prints them. */
export function action<A extends unknown[]>(fn: (ctx: CliContext, ...args: A) => Promise<void> | void) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    await fn(contextOf(command), ...(args.slice(0, -1) as A));
  };
}

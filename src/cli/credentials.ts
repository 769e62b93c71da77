// The credentials store: one login per machine user, in $XDG_CONFIG_HOME/ensign/credentials.json
// (default ~/.config/ensign/credentials.json), directory 0700, file 0600, written atomically; the
// defaults of `ensign use` beside it in defaults.json.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './errors.js';
import { cliIo } from './io.js';

export interface StoredCredentials {
  url: string;
  token: string;
  email: string;
  expiresAt: string;
}

type Env = Record<string, string | undefined>;

export function credentialsPath(env: Env = cliIo().env): string {
  const configHome =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/')
      ? env.XDG_CONFIG_HOME
      : join(env.HOME || homedir(), '.config');
  return join(configHome, 'ensign', 'credentials.json');
}

export function loadCredentials(path = credentialsPath()): StoredCredentials | null {
  if (!existsSync(path)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`, 'Run `ensign login` again to rewrite it.');
  }
  const c = parsed as Partial<StoredCredentials>;
  if (!c || typeof c.token !== 'string' || typeof c.url !== 'string') return null;
  return { url: c.url, token: c.token, email: String(c.email ?? ''), expiresAt: String(c.expiresAt ?? '') };
}

export function saveCredentials(credentials: StoredCredentials, path = credentialsPath()): void {
  writePrivateJson(path, credentials);
}

function writePrivateJson(path: string, value: unknown): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}

export function removeCredentials(path = credentialsPath()): boolean {
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}

/** The default app and environment saved by `ensign use`, for one server. */
export interface StoredDefaults {
  url: string;
  app: string;
  appSlug: string;
  env: string | null;
}

/** defaults.json, next to the credentials file. */
export const defaultsPath = (env: Env = cliIo().env) => join(dirname(credentialsPath(env)), 'defaults.json');

export function loadDefaults(path = defaultsPath()): StoredDefaults | null {
  if (!existsSync(path)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(
      `cannot read ${path}: ${(err as Error).message}`,
      'Run `ensign use <app>` again to rewrite it.',
    );
  }
  const d = parsed as Partial<StoredDefaults>;
  if (!d || typeof d.url !== 'string' || typeof d.app !== 'string') return null;
  return { url: d.url, app: d.app, appSlug: String(d.appSlug ?? ''), env: typeof d.env === 'string' ? d.env : null };
}

export function saveDefaults(defaults: StoredDefaults, path = defaultsPath()): void {
  writePrivateJson(path, defaults);
}

// The credentials store: one login per machine user, in $XDG_CONFIG_HOME/ensign/credentials.json
// (default ~/.config/ensign/credentials.json), directory 0700, file 0600, written atomically.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './errors.js';

export interface StoredCredentials {
  url: string;
  token: string;
  email: string;
  expiresAt: string;
}

type Env = Record<string, string | undefined>;

export function credentialsPath(env: Env = process.env): string {
  const configHome = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
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
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}

export function removeCredentials(path = credentialsPath()): boolean {
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}

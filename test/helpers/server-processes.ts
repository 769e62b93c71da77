// Real server processes on a PostgreSQL database of their own, for black-box tests of several
// processes (flags, exports, outages): the database is created for the test and dropped after it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startChild } from './child-process.js';
import { POSTGRES_URL } from './test-app.js';

type Cleanup = { after(fn: () => unknown): void };

/** A database of its own: the servers migrate the public schema, as in production. */
export async function scratchDatabase(t: Cleanup): Promise<string> {
  const name = `ensign_e2e_${randomBytes(5).toString('hex')}`;
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: POSTGRES_URL });
    await c.connect();
    await c.query(statement);
    await c.end();
  };
  await admin(`CREATE DATABASE ${name}`);
  t.after(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(POSTGRES_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Starts `src/main.ts` as its own process; resolves with the address it logs and the child. */
export async function startServerProcess(env: NodeJS.ProcessEnv, t: Cleanup & Parameters<typeof startChild>[0]) {
  const started = await startChild(
    t,
    'src/main.ts',
    env,
    (out) => /"address":"(http:\/\/[^"]+)"/.exec(out)?.[1] ?? null,
  );
  return { address: started.value, child: started.child, output: started.output };
}

/** A JSON call over HTTP. */
export async function httpCall(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

// Black box, two real server processes on one PostgreSQL database, over HTTP: 50 clients each
// applying 20 flag changes at once, spread over both processes, produce versions 1..1000 with one
// journal entry each. (The in-process variant with two app instances is in src/modules/flags.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { POSTGRES_URL } from '../helpers/test-app.js';
import { httpCall, scratchDatabase, startServerProcess } from '../helpers/server-processes.js';

const CLIENTS = 50;
const CHANGES_PER_CLIENT = 20;
const TOTAL = CLIENTS * CHANGES_PER_CLIENT;
/** Retries of a change answered 503 (retryable, nothing changed) before the test fails. */
const MAX_RETRIES = 5;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const startProcess = async (env: NodeJS.ProcessEnv, t: Parameters<typeof startServerProcess>[1]) =>
  (await startServerProcess(env, t)).address;
const call = httpCall;

test(
  'two server processes on one PostgreSQL serialise 1000 concurrent flag changes',
  { skip: !POSTGRES_URL && 'ENSIGN_TEST_POSTGRES_URL is not set' },
  async (t) => {
    const databaseUrl = await scratchDatabase(t);
    const dataDir = mkdtempSync(join(tmpdir(), 'ensign-e2e-flags-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      ...process.env,
      ENSIGN_DATABASE_URL: databaseUrl,
      ENSIGN_PORT: '0',
      ENSIGN_HOST: '127.0.0.1',
      ENSIGN_DATA_DIR: dataDir,
      ENSIGN_SECRET: 'e2e-secret-e2e-secret-e2e-secret-0123',
      ENSIGN_LOG_LEVEL: 'info',
    };
    // One after the other: the second finds the schema migrated.
    const first = await startProcess(env, t);
    const second = await startProcess(env, t);
    const servers = [first, second];

    const login = await call(first, 'POST', '/api/v1/cli-token', undefined, {
      flow: 'signUp',
      email: 'e2e-flags@example.com',
      password: 'a long enough password',
    });
    assert.equal(login.status, 200, login.text);
    const token = login.body.token as string;
    const created = await call(
      first,
      'POST',
      '/api/v1/apps',
      token,
      { name: 'E2E', slug: 'e2e' },
      { 'idempotency-key': 'e2e-flags-app-0001' },
    );
    assert.equal(created.status, 201, created.text);
    const appId = created.body.app.id as string;

    const answered: number[] = [];
    let retried = 0;
    await Promise.all(
      range(0, CLIENTS - 1).map(async (client) => {
        const base = servers[client % servers.length]!;
        for (let change = 0; change < CHANGES_PER_CLIENT; change++) {
          const patch = () =>
            call(base, 'PATCH', '/api/v1/flags', token, {
              appId,
              env: 'prod',
              key: `client-${client}`,
              type: 'number',
              value: change,
            });
          let res = await patch();
          // 25 clients per process share its 10 connections while the changes take turns on one row:
          // on a slow machine a request can wait past the pool's 5 s and be answered 503, which says
          // nothing was changed and to retry (as every client of the contract does).
          for (let retry = 0; res.status === 503 && retry < MAX_RETRIES; retry++) {
            retried++;
            await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
            res = await patch();
          }
          assert.equal(res.status, 200, res.text);
          answered.push(res.body.version);
        }
      }),
    );
    // A retried change is applied once: still one version per change, 1..1000, none lost or doubled.
    assert.deepEqual(
      [...answered].sort((a, b) => a - b),
      range(1, TOTAL),
    );
    if (retried > 0) t.diagnostic(`${retried} changes were answered 503 and retried`);

    // Read back through the other process: the journal holds one entry per version, 1..1000.
    const afterVersions: number[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({
        appId,
        env: 'prod',
        resourceType: 'flag',
        limit: '200',
        ...(cursor ? { cursor } : {}),
      });
      const page = await call(second, 'GET', `/api/v1/changes?${query}`, token);
      assert.equal(page.status, 200, page.text);
      for (const entry of page.body.changes) {
        assert.equal(entry.beforeVersion, entry.afterVersion - 1);
        afterVersions.push(entry.afterVersion);
      }
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.deepEqual(
      afterVersions.sort((a, b) => a - b),
      range(1, TOTAL),
    );

    const versions = await call(second, 'GET', `/api/v1/config-versions?appId=${appId}&env=prod&limit=100`, token);
    assert.deepEqual(
      versions.body.versions.map((v: { version: number }) => v.version),
      range(TOTAL - 99, TOTAL).reverse(),
    );
    assert.equal(versions.body.current.version, TOTAL);
    for (const client of range(0, CLIENTS - 1))
      assert.equal(versions.body.current.state.flags[`client-${client}`].value, CHANGES_PER_CLIENT - 1);
  },
);

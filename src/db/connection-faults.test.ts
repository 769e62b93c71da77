// Losing PostgreSQL connections (a terminated backend, a failover, a restart, the database gone for
// a while) must not end the process: it logs, /readyz answers 503 while the database is unreachable,
// and writes succeed and LISTEN is re-established once it is back.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import { buildApp } from '../app.js';
import { buildTestApp, createTestDatabase, POSTGRES_URL, testConfig } from '../../test/helpers/test-app.js';
import { call, createApp, signUp } from '../../test/helpers/fixtures.js';
import { withClient } from '../../test/helpers/template-databases.js';
import { createDb } from './create-db.js';

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const adminQuery = <T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> =>
  withClient(POSTGRES_URL!, async (client) => (await client.query<T>(text, values)).rows);

const listening = async (applicationName: string) =>
  (
    await adminQuery(`select pid from pg_stat_activity where application_name = $1 and query like 'LISTEN%'`, [
      applicationName,
    ])
  ).length > 0;

/** A TCP proxy in front of PostgreSQL that can be taken down (every connection cut) and brought back. */
async function databaseProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const up = async () => {
    if (server) return;
    server = createServer((inbound) => {
      const outbound = connect(Number(target.port || 5432), target.hostname);
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as { port: number }).port;
  };
  const down = async () => {
    if (!server) return;
    const closing = new Promise((resolve) => server?.close(resolve));
    for (const s of sockets) s.destroy();
    await closing;
    server = null;
  };
  await up();
  const url = new URL(target.toString());
  url.host = `127.0.0.1:${port}`;
  return { url: url.toString(), up, down };
}

if (POSTGRES_URL) {
  describe('PostgreSQL connection faults', () => {
    test('terminated backends are logged, the process carries on, writes succeed and LISTEN comes back', async (t) => {
      const { app, database, logs } = await buildTestApp(t, { dialect: 'postgres', captureLogs: true });
      const name = database.pgSchema!;
      const { token } = await signUp(app);
      await createApp(app, token);
      await until('the LISTEN connection is open', () => listening(name));

      const terminated = await adminQuery<{ pid: number; listener: boolean }>(
        `select pid, query like 'LISTEN%' as listener, pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`,
        [name],
      );
      assert.ok(terminated.length >= 2, 'the pool and the LISTEN connection had backends');
      // Every pooled connection's loss, not only the first: a write sent before the pool has heard of
      // a cut idle connection meets it dead and is answered 503 (retryable), which is not this test.
      const pooled = terminated.filter((b) => !b.listener).length;
      await until(
        `the ${pooled} lost pool connections are logged`,
        () => logs().split('lost a database connection').length - 1 >= pooled,
      );

      // The write succeeds. On a loaded machine the new connection it opens can outwait the pool's
      // 5 s connect timeout: that is the contract's 503 with Retry-After, which changed nothing, so
      // the client sends the same request again (same slug and Idempotency-Key), as clients do.
      let res = await call(app, 'POST', '/api/v1/apps', {
        token,
        idem: 'after-loss',
        payload: { name: 'After', slug: 'after-loss' },
      });
      for (let attempt = 1; res.statusCode === 503 && attempt < 5; attempt++) {
        assert.equal(res.headers['retry-after'], '1', res.body);
        res = await call(app, 'POST', '/api/v1/apps', {
          token,
          idem: 'after-loss',
          payload: { name: 'After', slug: 'after-loss' },
        });
      }
      assert.equal(res.statusCode, 201, res.body);
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      await until('LISTEN is re-established', () => listening(name));
    });

    test('while the database is unreachable every route answers 503 with Retry-After, never 500', async (t) => {
      const database = await createTestDatabase('postgres');
      // A proxy of this test's own is cut: the shared PostgreSQL server other tests use stays up.
      const proxy = await databaseProxy(new URL(database.url));
      const name = `${database.pgSchema}_outage`;
      const handle = createDb(proxy.url, { pgSchema: database.pgSchema, poolSize: 5, applicationName: name });
      const app = await buildApp({
        db: handle.db,
        dbHandle: handle,
        notifyChannel: database.pgSchema,
        config: testConfig({ logLevel: 'fatal' }),
      });
      t.after(async () => {
        await proxy.up();
        await app.close();
        await handle.close();
        await database.handle.close();
        await proxy.down();
        // Dropped last: after hooks run in the order they were added, and a database dropped under a
        // running app would be a different test.
        await database.drop();
      });
      const user = await signUp(app);
      const created = await createApp(app, user.token);
      // Credentials never used before the outage: resolving them has to read the database.
      const cliToken = (
        await app.inject({
          method: 'POST',
          url: '/api/v1/cli-token',
          payload: { flow: 'signIn', email: user.email, password: user.password },
        })
      ).json().token as string;

      await proxy.down();
      const requests: [string, Parameters<typeof call>[1], string, Parameters<typeof call>[3]][] = [
        [
          'sign in (login lookup)',
          'POST',
          '/api/v1/cli-token',
          { payload: { flow: 'signIn', email: user.email, password: user.password } },
        ],
        ['a session token (credential resolution)', 'GET', '/api/v1/apps', { token: cliToken }],
        [
          'an admin key (credential resolution)',
          'GET',
          `/api/v1/flags?appId=${created.appId}&env=prod`,
          { token: created.admin },
        ],
        [
          'a flag write',
          'PATCH',
          '/api/v1/flags',
          {
            token: user.token,
            payload: { appId: created.appId, env: 'prod', key: 'during-outage', type: 'bool', value: true },
          },
        ],
        [
          'an idempotent create (idempotency store)',
          'POST',
          '/api/v1/apps',
          { token: user.token, idem: true, payload: { name: 'Outage', slug: 'outage-app' } },
        ],
        ['a config read (environment key)', 'GET', '/api/v1/config', { token: created.sdk.prod }],
        [
          'ingestion',
          'POST',
          '/api/v1/events/batch',
          {
            token: created.sdk.prod,
            payload: {
              schemaVersion: 1,
              events: [
                {
                  id: 'outage-1',
                  kind: 'exposure',
                  timestamp: new Date().toISOString(),
                  targetingKey: 'u',
                  flagKey: 'f',
                  variant: 'on',
                },
              ],
            },
          },
        ],
      ];
      for (const [what, method, url, options] of requests) {
        const res = await call(app, method, url, options);
        assert.equal(res.statusCode, 503, `${what}: ${res.statusCode} ${res.body}`);
        assert.equal(res.headers['retry-after'], '1', what);
        const body = res.json();
        assert.equal(
          (body.error?.code ?? body.code ?? '').toLowerCase(),
          'service_unavailable',
          `${what}: ${res.body}`,
        );
      }

      await proxy.up();
      await until(
        'the routes answer again',
        async () => (await call(app, 'GET', '/api/v1/apps', { token: cliToken })).statusCode === 200,
      );
    });

    test('while the database is unreachable /readyz answers 503; once it is back, 200 and writes succeed', async (t) => {
      const database = await createTestDatabase('postgres');
      const proxy = await databaseProxy(new URL(database.url));
      const name = `${database.pgSchema}_proxy`;
      const handle = createDb(proxy.url, { pgSchema: database.pgSchema, poolSize: 5, applicationName: name });
      const stream = new PassThrough();
      let logs = '';
      stream.on('data', (chunk) => (logs += chunk.toString()));
      const app = await buildApp({
        db: handle.db,
        dbHandle: handle,
        notifyChannel: database.pgSchema,
        config: testConfig({ logLevel: 'error' }),
        logStream: stream,
      });
      t.after(async () => {
        await proxy.up();
        await app.close();
        await handle.close();
        await database.handle.close();
        await proxy.down();
        // Dropped last: after hooks run in the order they were added, and a database dropped under a
        // running app would be a different test.
        await database.drop();
      });
      const { token } = await signUp(app);
      await until('the LISTEN connection is open', () => listening(name));

      await proxy.down();
      await until('the lost connection is logged', () => logs.includes('lost a database connection'));
      const down = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(down.statusCode, 503, down.body);
      assert.equal(down.json().error.code, 'service_unavailable');

      await proxy.up();
      await until(
        '/readyz answers 200 again',
        async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200,
      );
      const created = await createApp(app, token);
      assert.ok(created.appId);
      await until('LISTEN is re-established', () => listening(name));
    });
  });
}

// The foundation over real HTTP: a server started as `npm start` starts it (temporary data directory,
// port 0), driven with fetch from sign-up to the journal, on SQLite and on PostgreSQL; and the real
// process, stopped with SIGTERM.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { connect } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/main.js';
import { entryArgs, serverBuildIsCurrent } from '../helpers/entry-points.js';
import { dialects, POSTGRES_URL, type TestContext } from '../helpers/test-app.js';

/** Environment for a fresh server: its own data directory and, on PostgreSQL, its own schema. */
async function freshEnvironment(t: TestContext, dialect: string): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ensign-e2e-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = { ENSIGN_DATA_DIR: dataDir, ENSIGN_PORT: '0', ENSIGN_LOG_LEVEL: 'silent' };
  if (dialect === 'postgres') {
    const schema = `e2e_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    t.after(async () => {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    });
    const url = new URL(POSTGRES_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    env.ENSIGN_DATABASE_URL = url.toString();
  }
  return env;
}

async function http(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await res.text();
  assert.ok(res.headers.get('x-request-id'), `${method} ${path} carries X-Request-Id`);
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

for (const dialect of dialects) {
  describe(`foundation over HTTP on ${dialect}`, () => {
    test('sign up, create an app, list environments and keys, create and revoke a key, read the journal', async (t) => {
      const env = await freshEnvironment(t, dialect);
      const config = loadConfig(env);
      const { app, handle, address } = await startServer(config);
      t.after(async () => {
        await app.close();
        await handle.close();
      });
      assert.match(address, /^http:\/\/127\.0\.0\.1:\d+$/);
      const secretFile = join(env.ENSIGN_DATA_DIR!, 'secret');
      assert.equal(statSync(secretFile).mode & 0o777, 0o600, 'the generated secret is private');
      if (dialect === 'sqlite') assert.ok(existsSync(join(env.ENSIGN_DATA_DIR!, 'ensign.db')));
      const call = (method: string, path: string, options?: Parameters<typeof http>[3]) =>
        http(address, method, path, options);

      for (const path of ['/api', '/api/v1', '/api/v1/contract', '/openapi.json', '/healthz', '/readyz'])
        assert.equal((await call('GET', path)).status, 200, path);

      const login = await call('POST', '/api/v1/cli-token', {
        body: { flow: 'signUp', email: 'e2e@example.com', password: 'a long password' },
      });
      assert.equal(login.status, 200, login.text);
      assert.equal(login.headers.get('cache-control'), 'no-store');
      assert.equal(login.headers.get('set-cookie'), null);
      const token = login.json().token as string;
      const cli = { 'x-ensign-source': 'cli' };

      const created = await call('POST', '/api/v1/apps', {
        token,
        body: { name: 'Shop', slug: 'shop' },
        headers: { ...cli, 'idempotency-key': 'e2e-create-shop' },
      });
      assert.equal(created.status, 201, created.text);
      const appId = created.json().app.id as string;
      const replay = await call('POST', '/api/v1/apps', {
        token,
        body: { name: 'Shop', slug: 'shop' },
        headers: { ...cli, 'idempotency-key': 'e2e-create-shop' },
      });
      assert.equal(replay.text, created.text);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');

      const envs = await call('GET', `/api/v1/envs?appId=${appId}`, { token });
      assert.deepEqual(
        envs.json().environments.map((e: any) => e.slug),
        ['dev', 'staging', 'prod'],
      );
      const apps = await call('GET', '/api/v1/apps', { token });
      assert.deepEqual(
        apps.json().apps.map((a: any) => a.id),
        [appId],
      );
      assert.ok(!apps.text.includes('"token"'));

      const keys = await call('GET', `/api/v1/keys?appId=${appId}`, { token });
      assert.equal(keys.json().keys.length, 4);
      assert.ok(!keys.text.includes('"token"'));

      const pub = await call('POST', '/api/v1/keys', {
        token,
        body: { appId, env: 'production', type: 'pub' },
        headers: { 'idempotency-key': 'e2e-create-pub' },
      });
      assert.equal(pub.status, 201, pub.text);
      const pubKey = pub.json().key;
      assert.equal(pubKey.env, 'prod');
      const admin = created.json().adminKey.token as string;
      const revoked = await call('PATCH', '/api/v1/keys', {
        token: admin,
        body: { keyId: pubKey.id, action: 'revoke' },
      });
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(revoked.json().key.status, 'revoked');
      const listed = (await call('GET', `/api/v1/keys?appId=${appId}&env=prod`, { token })).json().keys;
      assert.deepEqual(
        listed.map((k: any) => [k.id, k.status]),
        [
          [pubKey.id, 'revoked'],
          [created.json().keys[2].id, 'active'],
        ],
      );

      const journal = await call('GET', `/api/v1/changes?appId=${appId}`, { token: admin });
      assert.equal(journal.status, 200, journal.text);
      assert.deepEqual(
        journal.json().changes.map((c: any) => [c.operation, c.source, c.authority.type]),
        [
          ['key.revoke', 'api', 'admin_key'],
          ['key.create', 'api', 'user'],
          ['app.create', 'cli', 'user'],
        ],
      );
      for (const secret of [token, admin, pubKey.token]) assert.ok(!journal.text.includes(secret));

      const unknown = await call('GET', '/no/such/route');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json().error.code, 'not_found');
      const tooLarge = await call('POST', '/api/v1/apps', {
        token,
        body: JSON.stringify({ name: 'x'.repeat(1024 * 1024), slug: 'big' }),
        headers: { 'idempotency-key': 'e2e-too-large' },
      });
      assert.equal(tooLarge.status, 413);
      assert.equal(tooLarge.json().error.code, 'payload_too_large');

      assert.equal((await call('DELETE', '/api/v1/cli-token', { token })).status, 204);
      const after = await call('GET', '/api/v1/apps', { token });
      assert.equal(after.status, 401);
      assert.equal(after.json().error.code, 'unauthorized');
    });
  });
}

/** Starts `src/main.ts` as its own process; resolves with its address once it listens. */
async function startProcess(t: TestContext, env: Record<string, string>) {
  const child = spawn(process.execPath, entryArgs('src/main.ts'), {
    env: { ...process.env, ...env, ENSIGN_LOG_LEVEL: 'info', ENSIGN_SECRET: '', ENSIGN_DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.exitCode === null && child.kill('SIGKILL'));
  const state = { output: '' };
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${state.output}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      state.output += chunk.toString();
      const match = /"address":"(http:\/\/[^"]+)"/.exec(state.output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${state.output}`)));
  });
  return { child, address, state };
}

/**
 * A client that sends its request a byte every 100 ms: the headers (when `slowHeaders`) or a body
 * that never completes. Resolves with whatever the server answered once the connection closes.
 */
function slowClient(address: string, options: { slowHeaders?: boolean; finishAfterMs?: number } = {}) {
  const { hostname, port } = new URL(address);
  const socket = connect(Number(port), hostname);
  const head =
    'POST /api/v1/apps HTTP/1.1\r\nHost: ensign\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n';
  const body = '{"name":"slow-app1"}';
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk.toString()));
  socket.on('error', () => undefined);
  let sent = 0;
  const pending = options.slowHeaders ? head : body.slice(0, 19);
  if (!options.slowHeaders) socket.write(head);
  const drip = setInterval(() => {
    if (sent < pending.length) socket.write(pending[sent++]!);
  }, 100);
  if (options.finishAfterMs !== undefined) {
    setTimeout(() => {
      clearInterval(drip);
      socket.write(body.slice(sent));
    }, options.finishAfterMs);
  }
  return new Promise<string>((resolve) =>
    socket.on('close', () => {
      clearInterval(drip);
      resolve(answer);
    }),
  );
}

describe('the server process', () => {
  test('starts with a fresh data directory and stops cleanly on SIGTERM', async (t) => {
    const env = await freshEnvironment(t, 'sqlite');
    const { child, address, state } = await startProcess(t, env);
    assert.equal((await http(address, 'GET', '/readyz')).status, 200);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, state.output);
    assert.match(state.output, /shutting down/);
    assert.equal(statSync(join(env.ENSIGN_DATA_DIR!, 'secret')).mode & 0o777, 0o600);
  });

  test('slow headers and slow bodies get 408 after their timeouts; SIGTERM with ten slow connections exits 0 after the grace period', async (t) => {
    const env = await freshEnvironment(t, 'sqlite');
    Object.assign(env, {
      ENSIGN_REQUEST_TIMEOUT_MS: '4000',
      ENSIGN_HEADERS_TIMEOUT_MS: '2000',
      ENSIGN_SHUTDOWN_GRACE_MS: '1000',
    });
    const { child, address, state } = await startProcess(t, env);

    const started = Date.now();
    const [slowHeaders, slowBody] = await Promise.all([
      slowClient(address, { slowHeaders: true }),
      slowClient(address),
    ]);
    assert.match(slowHeaders, /^HTTP\/1\.1 408/, 'headers slower than ENSIGN_HEADERS_TIMEOUT_MS');
    assert.match(slowBody, /^HTTP\/1\.1 408/, 'a body slower than ENSIGN_REQUEST_TIMEOUT_MS');
    assert.ok(Date.now() - started < 7000, 'cut off within a second of the timeout');
    assert.equal((await http(address, 'GET', '/readyz')).status, 200, 'other clients are served');

    const slow = Array.from({ length: 10 }, () => slowClient(address));
    const finishing = slowClient(address, { finishAfterMs: 600 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalled = Date.now();
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    const stoppedIn = Date.now() - signalled;
    assert.equal(code, 0, state.output);
    assert.ok(
      stoppedIn >= 1000 && stoppedIn < 3000,
      `stopped ${stoppedIn} ms after SIGTERM, with a 1000 ms grace period`,
    );
    assert.match(state.output, /grace period over/);
    assert.match(state.output, /"msg":"stopped"/);
    // Answered once its body has arrived: 401, as it carries no credential (checked before the body).
    assert.match(await finishing, /^HTTP\/1\.1 401 [^]*"unauthorized"/, 'a request in flight at SIGTERM is answered');
    for (const answer of await Promise.all(slow)) assert.doesNotMatch(answer, /^HTTP\/1\.1 5/);
  });

  test(
    '`npm start` stops on `kill <pid of npm start>`: the signal reaches the server, which exits cleanly',
    { timeout: 300_000 },
    async (t) => {
      const env = await freshEnvironment(t, 'sqlite');
      // `npm start` builds first (prestart); the build is made here only when the one on disk is
      // older than the sources (`npm run typecheck` writes it, as CI runs it before the tests).
      if (!serverBuildIsCurrent()) {
        const build = spawnSync('npm', ['run', 'build'], { encoding: 'utf8' });
        assert.equal(build.status, 0, build.stderr);
      }
      const npm = spawn('npm', ['start', '--ignore-scripts'], {
        env: { ...process.env, ...env, ENSIGN_LOG_LEVEL: 'info', ENSIGN_SECRET: '', ENSIGN_DATABASE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout.on('data', (chunk) => (output += chunk.toString()));
      // Closes once every writer has gone: npm and the server it started.
      const allExited = once(npm.stdout, 'close');
      t.after(() => npm.exitCode === null && npm.kill('SIGKILL'));
      const address = await new Promise<string>((resolve, reject) => {
        const poll = setInterval(() => {
          const match = /"address":"(http:\/\/[^"]+)"/.exec(output);
          if (match) {
            clearInterval(poll);
            resolve(match[1]!);
          }
        }, 100);
        npm.once('exit', (code) => {
          clearInterval(poll);
          reject(new Error(`npm start exited with ${code}: ${output}`));
        });
      });
      assert.equal((await http(address, 'GET', '/readyz')).status, 200);

      process.kill(npm.pid!, 'SIGTERM');
      await allExited;
      assert.match(output, /shutting down/);
      assert.match(output, /"msg":"stopped"/);
      await assert.rejects(fetch(address + '/healthz'), 'nothing listens any more');
    },
  );
});

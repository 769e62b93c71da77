// The server-side commands: `ensign migrate`, `ensign serve` and `ensign admin plan`, each as a child
// process on the ENSIGN_* variables `npm start` reads.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, ROOT, runCli, spawnCli } from '../helpers/cli-runner.js';
import { entryArgs } from '../helpers/entry-points.js';

const start = (args: string[], env: NodeJS.ProcessEnv) =>
  spawn(process.execPath, [...entryArgs(CLI), ...args], { cwd: ROOT, env });

/** Waits for the "Ensign listening on <address>" log line of `ensign serve`. */
function listeningAddress(child: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`serve did not start:\n${out}`)), 30_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /Ensign listening on (http:\/\/[^"\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]);
      }
    });
    child.stderr!.on('data', (d) => (out += d));
    child.on('exit', (code) => fail(new Error(`serve exited with ${code}:\n${out}`)));
  });
}

test('ensign migrate, serve and admin plan', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ensign-cli-operator-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    ENSIGN_DATA_DIR: join(dir, 'data'),
    ENSIGN_PORT: '0',
    ENSIGN_LOG_LEVEL: 'info',
    ENSIGN_QUOTA_FREE_APPS: '0',
    ENSIGN_DATABASE_URL: '',
    ENSIGN_SECRET: '',
    ENSIGN_URL: '',
    ENSIGN_TOKEN: '',
  };

  await t.test('migrate applies the migrations once', async () => {
    const first = await spawnCli(['migrate'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /applied 0001-foundation/);
    const again = await spawnCli(['migrate', '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { database: 'sqlite', applied: [] });
  });

  const server = start(['serve'], env);
  const exited = new Promise<number | null>((r) => server.on('exit', (code) => r(code)));
  t.after(() => server.kill('SIGKILL'));
  const url = await listeningAddress(server);
  const client = { ...env, ENSIGN_URL: url };
  const email = 'operator-test@example.com';

  await t.test('serve answers HTTP like npm start', async () => {
    const res = await fetch(`${url}/api`);
    assert.equal(res.status, 200);
    const login = await runCli(
      ['login', '--sign-up', '--email', email, '--password-stdin'],
      client,
      'a long enough password',
    );
    assert.equal(login.code, 0, login.stderr);
  });

  await t.test('admin plan raises the quota of a user on the server database', async () => {
    const refused = await runCli(['apps', 'create', 'Quota', '--slug', 'quota'], client);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /app_quota_exceeded/);
    const plan = await spawnCli(['admin', 'plan', email, 'pro'], env);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /now on the pro plan/);
    const created = await runCli(['apps', 'create', 'Quota', '--slug', 'quota'], client);
    assert.equal(created.code, 0, created.stderr);
  });

  await t.test('admin plan of an unknown e-mail or plan fails', async () => {
    const unknown = await spawnCli(['admin', 'plan', 'nobody@example.com', 'pro'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No user with e-mail nobody@example\.com/);
    assert.match(unknown.stderr, /resolution: /);
    const badPlan = await spawnCli(['admin', 'plan', email, 'gold'], env);
    assert.equal(badPlan.code, 2);
  });

  await t.test('serve shuts down cleanly on SIGTERM', async () => {
    server.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});

// End to end: a real server in this process (SQLite in a temp dir, random port), the `ensign` CLI
// against it (in this process, and as a child process where the exit status is under test), with
// HOME and XDG_CONFIG_HOME in a temp dir.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, spawnCli } from '../helpers/cli-runner.js';
import { startTestServer } from '../helpers/e2e-server.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

test('ensign CLI against a real server', async (t) => {
  const { address, dir } = await startTestServer(t, 'cli');
  const home = join(dir, 'home');
  const baseEnv: Record<string, string | undefined> = {
    ...process.env,
    ENSIGN_URL: address,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
    ENSIGN_TOKEN: undefined,
  };
  delete baseEnv.ENSIGN_TOKEN;
  const cli = (args: string[], stdin = '', env: Record<string, string | undefined> = {}) =>
    runCli(args, { ...baseEnv, ...env }, stdin);
  const ok = async (args: string[], stdin = '') => {
    const r = await cli(args, stdin);
    assert.equal(r.code, 0, `ensign ${args.join(' ')} failed:\n${r.stderr}`);
    return r;
  };
  const json = async (args: string[], stdin = '') => JSON.parse((await ok([...args, '--json'], stdin)).stdout);
  const credentialsFile = join(home, 'xdg', 'ensign', 'credentials.json');
  const email = 'cli-user@example.com';
  const password = 'correct horse battery staple';
  let appId = '';
  let firstToken = '';

  await t.test('login --sign-up reads the password from stdin and saves credentials 0600 in a 0700 dir', async () => {
    const r = await ok(['login', '--sign-up', '--email', email, '--password-stdin'], `${password}\n`);
    assert.match(r.stdout, /Logged in to .* as cli-user@example\.com/);
    assert.doesNotMatch(r.stdout + r.stderr, /cli_/, 'the token is not printed in human mode');
    assert.equal(statSync(credentialsFile).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'xdg', 'ensign')).mode & 0o777, 0o700);
    const saved = JSON.parse(readFileSync(credentialsFile, 'utf8'));
    assert.equal(saved.url, address);
    assert.equal(saved.email, email);
    assert.match(saved.token, /^cli_/);
    assert.ok(Date.parse(saved.expiresAt) > Date.now());
    firstToken = saved.token;
  });

  await t.test('login (signIn) with --json prints the raw response', async () => {
    const body = await json(['login', '--email', email, '--password-stdin'], password);
    assert.equal(body.apiVersion, 1);
    assert.match(body.token, /^cli_/);
    assert.equal(body.user.email, email);
    assert.equal(JSON.parse(readFileSync(credentialsFile, 'utf8')).token, body.token);
  });

  await t.test('apps create prints the one-time tokens with a warning; --json gives the raw answer', async () => {
    const r = await ok(['apps', 'create', 'Web Shop', '--slug', 'web-shop']);
    assert.match(r.stdout, /Created app Web Shop \(web-shop\)/);
    assert.match(r.stdout, /sdk_\S{20,}/);
    assert.match(r.stdout, /admin_\S{20,}/);
    assert.match(r.stderr, /shown once/);
    const body = JSON.parse((await ok(['--json', 'apps', 'create', 'Mobile', '--slug', 'mobile'])).stdout);
    assert.match(body.app.id, /^app_/);
    assert.deepEqual(body.environments.map((e: { slug: string }) => e.slug).sort(), ['dev', 'prod', 'staging']);
    assert.equal(body.keys.length, 3);
    assert.match(body.adminKey.token, /^admin_/);
    appId = body.app.id;
  });

  await t.test('apps create with the same --idempotency-key replays the first answer', async () => {
    const first = await json(['apps', 'create', 'Again', '--slug', 'again', '--idempotency-key', 'cli-test-key-0001']);
    const second = await json(['apps', 'create', 'Again', '--slug', 'again', '--idempotency-key', 'cli-test-key-0001']);
    assert.equal(second.app.id, first.app.id);
    assert.equal(second.adminKey.token, first.adminKey.token);
  });

  await t.test('apps list: table and JSON', async () => {
    const r = await ok(['apps', 'list']);
    assert.match(r.stdout.split('\n')[0], /^ID\s+SLUG\s+NAME\s+ENVIRONMENTS\s+CREATED\s+ROLE$/);
    assert.match(r.stdout, /web-shop\s+Web Shop\s+dev,staging,prod/);
    const body = await json(['apps', 'list']);
    assert.ok(body.apps.some((a: { id: string }) => a.id === appId));
    assert.doesNotMatch(JSON.stringify(body), /"token"/);
  });

  await t.test('envs list', async () => {
    const r = await ok(['envs', 'list', '--app', appId]);
    assert.match(r.stdout, /prod\s+Production\s+env_/);
    const body = await json(['envs', 'list', '--app', appId]);
    assert.deepEqual(body.environments.map((e: { slug: string }) => e.slug).sort(), ['dev', 'prod', 'staging']);
  });

  let keyId = '';
  await t.test('keys create, list, revoke', async () => {
    const created = await json([
      'keys',
      'create',
      '--app',
      appId,
      '--type',
      'pub',
      '--env',
      'prod',
      '--name',
      'web client',
    ]);
    assert.match(created.key.token, /^pub_/);
    keyId = created.key.id;
    const human = await ok(['keys', 'create', '--app', appId, '--type', 'admin']);
    assert.match(human.stdout, /token: admin_/);
    assert.match(human.stderr, /shown once/);
    const listed = await json(['keys', 'list', '--app', appId, '--env', 'prod']);
    assert.ok(listed.keys.every((k: { env: string }) => k.env === 'prod'));
    assert.ok(listed.keys.some((k: { id: string; name?: string }) => k.id === keyId && k.name === 'web client'));
    const table = await ok(['keys', 'list', '--app', appId]);
    assert.match(table.stdout, new RegExp(`${keyId}\\s+pub\\s+prod\\s+web client\\s+${created.key.prefix}\\s+active`));
    const revoked = await ok(['keys', 'revoke', keyId]);
    assert.match(revoked.stdout, new RegExp(`Key ${keyId} .* revoked at`));
    const again = await json(['keys', 'revoke', keyId]);
    assert.equal(again.key.status, 'revoked');
  });

  await t.test('changes: filters, paging, source cli', async () => {
    const all = await json(['changes', '--app', appId]);
    const ops = all.changes.map((c: { operation: string }) => c.operation);
    for (const op of ['app.create', 'key.create', 'key.revoke']) assert.ok(ops.includes(op), `${op} in ${ops}`);
    assert.ok(
      all.changes.every((c: { source: string }) => c.source === 'cli'),
      'every request carried X-Ensign-Source: cli',
    );
    const revokes = await json([
      'changes',
      '--app',
      appId,
      '--operation',
      'key.revoke',
      '--resource-type',
      'key',
      '--source',
      'cli',
      '--authority-type',
      'user',
    ]);
    assert.ok(revokes.changes.length >= 1);
    assert.ok(
      revokes.changes.every(
        (c: { operation: string; resourceId: string }) => c.operation === 'key.revoke' && c.resourceId === keyId,
      ),
    );
    const page = await json(['changes', '--app', appId, '--limit', '1']);
    assert.equal(page.changes.length, 1);
    assert.ok(page.nextCursor);
    const next = await json(['changes', '--app', appId, '--limit', '1', '--cursor', page.nextCursor]);
    assert.notEqual(next.changes[0].id, page.changes[0].id);
    const table = await ok(['changes', '--app', appId, '--env', 'prod', '--limit', '1']);
    assert.match(table.stdout, /^ID\s+CREATED\s+OPERATION\s+SOURCE/);
    assert.match(table.stderr, /more: add --cursor /);
  });

  await t.test('a refused request exits 1 with the server message and resolution on stderr', async () => {
    const bad = await cli(['apps', 'create', 'Bad', '--slug', 'Bad Slug']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /error: .*slug.*\[validation_error, HTTP 400\]/);
    assert.match(bad.stderr, /resolution: \S+/);
    assert.equal(bad.stdout, '');
    const missing = await cli(['envs', 'list', '--app', 'app_00000000000000000000000000', '--json']);
    assert.equal(missing.code, 1);
    assert.equal(JSON.parse(missing.stdout).error.code, 'not_found');
    assert.match(missing.stderr, /resolution: /);
  });

  await t.test('usage errors exit 2; an unreachable server exits 3 with "cannot reach" (real processes)', async () => {
    const usage = await spawnCli(['keys', 'create', '--app', appId, '--type', 'nope'], baseEnv);
    assert.equal(usage.code, 2);
    const port = await closedPort();
    const down = await spawnCli(['--url', `http://127.0.0.1:${port}`, 'apps', 'list'], baseEnv);
    assert.equal(down.code, 3);
    assert.match(down.stderr, new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
  });

  await t.test('ENSIGN_TOKEN wins over the saved token', async () => {
    const r = await cli(['apps', 'list'], '', { ENSIGN_TOKEN: 'cli_not-a-real-token' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /HTTP 401/);
  });

  await t.test('logout revokes the token and removes the credentials file', async () => {
    const saved = JSON.parse(readFileSync(credentialsFile, 'utf8'));
    const r = await ok(['logout']);
    assert.match(r.stdout, /Token revoked/);
    assert.equal(existsSync(credentialsFile), false);
    const after = await cli(['apps', 'list']);
    assert.equal(after.code, 1);
    assert.match(after.stderr, /ensign login/);
    const revoked = await cli(['apps', 'list'], '', { ENSIGN_TOKEN: saved.token });
    assert.equal(revoked.code, 1);
    assert.match(revoked.stderr, /HTTP 401/);
    const older = await cli(['apps', 'list'], '', { ENSIGN_TOKEN: firstToken });
    assert.equal(older.code, 0, 'logout revokes only the presented token');
  });
});

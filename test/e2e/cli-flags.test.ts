// End to end against a real server: flags, bulk, versions, delivery, evaluation and advanced commands.
// Every step runs: a route that is not served fails its step (no skipping on 404).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli-runner.js';
import { startTestServer } from '../helpers/e2e-server.js';

test('ensign flag, version and delivery commands against a real server', async (t) => {
  const { address, dir } = await startTestServer(t, 'cli-flags');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ENSIGN_URL: address,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    ENSIGN_TOKEN: '',
  };
  const cli = async (args: string[], stdin = '') => {
    const r = await runCli(args, env, stdin);
    assert.equal(r.code, 0, `ensign ${args.join(' ')} failed:\n${r.stderr}`);
    return r;
  };
  const json = async (args: string[]) => JSON.parse((await cli([...args, '--json'])).stdout);

  await cli(['login', '--sign-up', '--email', 'flags-cli@example.com', '--password-stdin'], 'a long enough password');
  const created = await json(['apps', 'create', 'Flags', '--slug', 'flags']);
  const appId: string = created.app.id;
  const sdk: string = created.keys.find((k: { env: string }) => k.env === 'prod').token;
  const scope = ['--app', appId, '--env', 'prod'];

  await t.test('flags set / list / get / toggle / delete', async () => {
    const made = await json([
      'flags',
      'set',
      'checkout',
      ...scope,
      '--type',
      'bool',
      '--value',
      'false',
      '--client-enabled',
      'true',
      '--op',
      'create',
    ]);
    assert.equal(made.flag.key, 'checkout');
    assert.equal(made.flag.value, false);
    assert.match(made.changeId, /^chg_/);
    const text = await cli([
      'flags',
      'set',
      'greeting',
      ...scope,
      '--type',
      'string',
      '--value',
      'hello',
      '--expected-version',
      String(made.version),
    ]);
    assert.match(text.stdout, /Flag greeting saved: version \d+, change chg_/);
    const list = await cli(['flags', 'list', ...scope]);
    assert.match(list.stdout, /checkout\s+bool\s+false\s+yes/);
    assert.match(list.stdout, /greeting\s+string\s+hello\s+no/);
    const got = await json(['flags', 'get', 'greeting', ...scope]);
    assert.equal(got.flag.value, 'hello');
    const toggled = await json(['flags', 'toggle', 'checkout', ...scope]);
    assert.equal(toggled.flag.value, true);
    const conflict = await runCli(
      ['flags', 'set', 'checkout', ...scope, '--value', 'false', '--expected-version', '0'],
      env,
    );
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /version_conflict/);
    const deleted = await json(['flags', 'delete', 'greeting', ...scope]);
    assert.equal(deleted.version, toggled.version + 1);
  });

  await t.test('flags bulk replays the same file', async () => {
    const file = join(dir, 'bulk.json');
    writeFileSync(file, JSON.stringify({ flags: { checkout: false } }));
    const first = await json(['flags', 'bulk', ...scope, '--file', file]);
    assert.deepEqual(first.updated, ['checkout']);
    assert.equal(first.replay.replayed, false);
    const again = await runCli(['flags', 'bulk', ...scope, '--file', file], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /replayed/);
  });

  await t.test('versions list / show / diff', async () => {
    const list = await json(['versions', 'list', ...scope, '--limit', '2']);
    assert.equal(list.versions.length, 2);
    const top = list.versions[0].version;
    assert.equal(list.current.version, top);
    const shown = await json(['versions', 'show', String(top), ...scope]);
    assert.equal(shown.version, top);
    const diff = await json(['versions', 'diff', String(top - 1), String(top), ...scope]);
    assert.ok(diff.changes.length >= 1);
    const table = await cli(['versions', 'diff', '0', String(top), ...scope]);
    assert.match(table.stdout, /add\s+flag\s+checkout/);
  });

  await t.test('config pull with an sdk key, then 304 with its ETag', async () => {
    const pulled = await cli(['config', 'pull', '--key', sdk]);
    const doc = JSON.parse(pulled.stdout);
    assert.equal(doc.appId, appId);
    assert.equal(doc.env, 'prod');
    const etag = /ETag: (.+)/.exec(pulled.stderr)?.[1];
    assert.ok(etag, pulled.stderr);
    const same = await cli(['config', 'pull', '--key', sdk, '--etag', etag!]);
    assert.equal(same.stdout, '');
    assert.match(same.stderr, /not modified/);
    const bad = await runCli(['config', 'pull', '--key', 'sdk_invalid'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /HTTP 401/);
    assert.match(bad.stderr, /resolution: /);
  });

  await t.test('eval', async () => {
    const body = await json(['eval', 'checkout', '--key', sdk, '--context', '{"targetingKey":"user-1"}']);
    assert.equal(typeof body, 'object');
  });

  await t.test('advanced show', async () => {
    const doc = await json(['advanced', 'show', ...scope]);
    assert.equal(typeof doc, 'object');
  });
});

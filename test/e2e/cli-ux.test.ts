// End to end, what a new user meets: --app by slug, the defaults of `ensign use`, config pull --etag
// without the quotes the shell strips, and the idempotency key keys create prints.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli-runner.js';
import { startTestServer } from '../helpers/e2e-server.js';

test('ensign CLI: slugs, defaults, ETags and idempotency keys', async (t) => {
  const { address, dir } = await startTestServer(t, 'cli-ux');
  const home = join(dir, 'home');
  const baseEnv: Record<string, string | undefined> = {
    ...process.env,
    ENSIGN_URL: address,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
  };
  delete baseEnv.ENSIGN_TOKEN;
  const cli = (...args: string[]) => runCli(args, baseEnv);
  const ok = async (...args: string[]) => {
    const r = await cli(...args);
    assert.equal(r.code, 0, `ensign ${args.join(' ')} failed:\n${r.stderr}`);
    return r;
  };
  const json = async (...args: string[]) => JSON.parse((await ok(...args, '--json')).stdout);
  const refused = async (pattern: RegExp, ...args: string[]) => {
    const r = await cli(...args);
    assert.equal(r.code, 2, `ensign ${args.join(' ')} should be refused:\n${r.stdout}${r.stderr}`);
    assert.match(r.stderr, pattern);
  };

  const r = await runCli(
    ['login', '--sign-up', '--email', 'ux@example.com', '--password-stdin'],
    baseEnv,
    'correct horse battery staple\n',
  );
  assert.equal(r.code, 0, r.stderr);
  const created = await json('apps', 'create', 'Shop', '--slug', 'shop');
  const appId: string = created.app.id;
  const sdkDev: string = created.keys.find(
    (k: { type: string; env: string }) => k.type === 'sdk' && k.env === 'dev',
  ).token;

  await t.test('--app takes the slug as well as the id, and an unknown slug is a clear error', async () => {
    await ok('flags', 'set', 'checkout', '--app', 'shop', '--env', 'dev', '--type', 'bool', '--value', 'true');
    const bySlug = await json('flags', 'list', '--app', 'shop', '--env', 'dev');
    const byId = await json('flags', 'list', '--app', appId, '--env', 'dev');
    assert.deepEqual(bySlug, byId);
    assert.deepEqual(
      bySlug.flags.map((f: { key: string }) => f.key),
      ['checkout'],
    );
    const envs = await json('envs', 'list', '--app', 'shop');
    assert.deepEqual(envs.environments.map((e: { slug: string }) => e.slug).sort(), ['dev', 'prod', 'staging']);
    await refused(/no app has the slug "nope"/, 'flags', 'list', '--app', 'nope', '--env', 'dev');
    await refused(/no app has the id "app_nope"/, 'use', 'app_nope');
  });

  await t.test('without --app or a saved default, a clear error says how to give one', async () => {
    await refused(/no app given[\s\S]*ensign use/, 'flags', 'list', '--env', 'dev');
    await refused(/no app given/, 'keys', 'list');
  });

  await t.test(
    'ensign use saves a default app and environment beside the credentials; commands fall back to them',
    async () => {
      await refused(/no environment "qa"[\s\S]*dev/, 'use', 'shop', '--env', 'qa');
      const saved = await json('use', 'shop', '--env', 'dev');
      assert.deepEqual(saved, { url: address, app: appId, appSlug: 'shop', env: 'dev' });
      const file = join(home, 'xdg', 'ensign', 'defaults.json');
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), saved);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const list = await json('flags', 'list');
      assert.deepEqual(
        list.flags.map((f: { key: string }) => f.key),
        ['checkout'],
      );
      // An explicit option still wins over the default.
      assert.deepEqual((await json('flags', 'list', '--env', 'prod')).flags, []);
      const versions = await json('versions', 'list');
      assert.ok(versions.versions.length >= 1);
      // Without --env the saved environment is dropped, so env-scoped commands ask for one.
      await ok('use', 'shop');
      await refused(/no environment given[\s\S]*--env/, 'flags', 'list');
      assert.deepEqual((await json('flags', 'list', '--env', 'dev')).flags.length, 1);
    },
  );

  await t.test('config pull --etag adds the quotes the shell strips', async () => {
    const pulled = await ok('config', 'pull', '--key', sdkDev);
    const etag = /ETag: (.+)/.exec(pulled.stderr)?.[1]?.trim();
    assert.ok(etag && etag.startsWith('"'), pulled.stderr);
    for (const given of [etag, etag.slice(1, -1)]) {
      const again = await ok('config', 'pull', '--key', sdkDev, '--etag', given);
      assert.match(again.stderr, /not modified/, `--etag ${given}`);
      assert.equal(again.stdout, '');
    }
  });

  await t.test('keys create prints its idempotency key, and rerunning with it replays the answer', async () => {
    const first = await ok('keys', 'create', '--app', 'shop', '--env', 'staging', '--type', 'pub', '--name', 'web');
    const key = /Idempotency-Key (\S+):/.exec(first.stderr)?.[1];
    assert.ok(key, first.stderr);
    const token = /token: (\S+)/.exec(first.stdout)?.[1];
    assert.match(token ?? '', /^pub_/);
    const again = await ok(
      'keys',
      'create',
      '--app',
      'shop',
      '--env',
      'staging',
      '--type',
      'pub',
      '--name',
      'web',
      '--idempotency-key',
      key,
    );
    assert.equal(/token: (\S+)/.exec(again.stdout)?.[1], token);
    const keys = await json('keys', 'list', '--env', 'staging');
    assert.equal(keys.keys.filter((k: { name?: string }) => k.name === 'web').length, 1);
  });
});

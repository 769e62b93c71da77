// The CLI's requests for routes other engineers are still building, checked against a stub server that
// speaks CONTRACT.md sections 4 and 5 (and the legacy error shape of the environment-key routes).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli-runner.js';

interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: any;
}

const flag = {
  key: 'checkout',
  type: 'bool',
  value: false,
  clientEnabled: false,
  description: '',
  rollout: null,
  variants: null,
  rules: [],
  overrides: {},
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const envelope = {
  appId: 'app_1',
  env: 'prod',
  version: 7,
  doc: { flags: { checkout: { type: 'bool', value: false } }, overrides: {}, rules: {} },
  ttlSeconds: 60,
};

function answer(seen: Seen, res: ServerResponse): void {
  const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const auth = seen.headers.authorization ?? '';
  const route = `${seen.method} ${seen.url.pathname}`;
  if (route === 'GET /api/v1/config' || route === 'GET /api/v1/public-config') {
    if (!/^Bearer (sdk|pub)_good$/.test(auth))
      return send(401, {
        error: 'Unauthorized',
        code: 'INVALID_CREDENTIAL',
        message: 'The key is not valid.',
        resolution: 'Use an active sdk_ key of this environment.',
      });
    if (seen.headers['if-none-match'] === '"e7"') return send(304, undefined, { etag: '"e7"' });
    return send(200, envelope, { etag: '"e7"' });
  }
  if (route === 'POST /api/v1/evaluate')
    return send(200, { flagKey: seen.body.flagKey, value: true, reason: 'TARGETING_MATCH', variant: null });
  if (route === 'GET /api/v1/flags') return send(200, { flags: [flag], version: 7 });
  if (route === 'PATCH /api/v1/flags')
    return send(200, { flag: { ...flag, ...seen.body }, version: 8, changeId: 'chg_1' });
  if (route === 'DELETE /api/v1/flags') return send(200, { version: 9, changeId: 'chg_2' });
  if (route === 'PATCH /api/v1/flags/bulk')
    return send(200, {
      version: 10,
      changeId: 'chg_3',
      updated: Object.keys(seen.body.flags ?? {}),
      replay: { idempotencyKey: seen.body.idempotencyKey, replayed: false, firstAppliedAt: '2026-01-01T00:00:00.000Z' },
    });
  if (route === 'GET /api/v1/config-versions')
    return send(200, {
      versions: [
        {
          version: 7,
          createdAt: '2026-01-01T00:00:00.000Z',
          changeId: 'chg_1',
          operation: 'flag.update',
          authority: { type: 'user', userId: 'usr_1' },
        },
      ],
      current: { version: 7, state: {} },
    });
  if (route === 'GET /api/v1/config-versions/diff')
    return send(200, {
      from: 6,
      to: 7,
      changes: [{ op: 'change', resourceType: 'flag', key: 'checkout', path: '/value', before: false, after: true }],
      dependencies: [],
      visibility: [],
      rollback: { fromState: 'a', toState: 'b' },
    });
  if (route === 'GET /api/v1/config-versions/6')
    return send(200, { version: 6, createdAt: '2026-01-01T00:00:00.000Z', changeId: 'chg_0', state: { flags: {} } });
  if (route === 'GET /api/v1/advanced-config') return send(200, { schemaVersion: 1, flags: {} }, { etag: '"a1"' });
  if (route === 'POST /api/v1/advanced-config/impact' || route === 'POST /api/v1/advanced-config/inspect')
    return send(200, { received: seen.body });
  return send(404, { error: { code: 'not_found', message: `No route ${route}.`, resolution: 'stub' } });
}

test('flag, version, delivery and advanced commands send what the contract says', async (t) => {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const s: Seen = {
        method: req.method!,
        url: new URL(req.url!, 'http://stub'),
        headers: req.headers,
        body: raw ? JSON.parse(raw) : undefined,
      };
      seen.push(s);
      answer(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'ensign-cli-contract-'));
  t.after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const env = {
    ...process.env,
    ENSIGN_URL: url,
    ENSIGN_TOKEN: 'cli_test',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg'),
  };
  const cli = async (...args: string[]) => {
    const r = await runCli(args, env);
    assert.equal(r.code, 0, `ensign ${args.join(' ')}: ${r.stderr}`);
    return { ...r, last: seen[seen.length - 1] };
  };
  const scope = ['--app', 'app_1', '--env', 'prod'];

  await t.test('every request carries X-Ensign-Source: cli', async () => {
    await cli('flags', 'list', ...scope);
    assert.equal(seen[0].headers['x-ensign-source'], 'cli');
    assert.equal(seen[0].headers.authorization, 'Bearer cli_test');
  });

  await t.test('flags list / get', async () => {
    const list = await cli('flags', 'list', ...scope);
    assert.equal(list.last.url.search, '?appId=app_1&env=prod');
    assert.match(list.stdout, /checkout\s+bool\s+false\s+no/);
    assert.match(list.stdout, /version 7/);
    const get = await cli('flags', 'get', 'checkout', ...scope, '--json');
    assert.deepEqual(JSON.parse(get.stdout), { flag, version: 7 });
    const missing = await runCli(['flags', 'get', 'nope', ...scope], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no flag "nope"/);
  });

  await t.test('flags set parses values and JSON fields into the PATCH body', async () => {
    const r = await cli(
      'flags',
      'set',
      'checkout',
      ...scope,
      '--type',
      'bool',
      '--value',
      'true',
      '--client-enabled',
      'true',
      '--description',
      'New checkout',
      '--rollout',
      '{"percentage":25,"value":true}',
      '--rules',
      '[]',
      '--overrides',
      '{"user-1":true}',
      '--metadata',
      '{"owner":"web"}',
      '--op',
      'create',
      '--expected-version',
      '7',
    );
    assert.equal(r.last.method, 'PATCH');
    assert.deepEqual(r.last.body, {
      appId: 'app_1',
      env: 'prod',
      key: 'checkout',
      op: 'create',
      expectedVersion: 7,
      type: 'bool',
      value: true,
      clientEnabled: true,
      description: 'New checkout',
      rollout: { percentage: 25, value: true },
      rules: [],
      overrides: { 'user-1': true },
      metadata: { owner: 'web' },
    });
    assert.match(r.stdout, /Flag checkout saved: version 8, change chg_1/);
    const str = await cli('flags', 'set', 'greeting', ...scope, '--type', 'string', '--value', '42');
    assert.equal(str.last.body.value, '42');
    const plain = await cli('flags', 'set', 'greeting', ...scope, '--value', 'hello world', '--variants', 'null');
    assert.deepEqual(plain.last.body, {
      appId: 'app_1',
      env: 'prod',
      key: 'greeting',
      value: 'hello world',
      variants: null,
    });
    const bad = await runCli(['flags', 'set', 'x', ...scope, '--rules', '[oops'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--rules is not valid JSON/);
  });

  await t.test('flags toggle and delete', async () => {
    const toggle = await cli('flags', 'toggle', 'checkout', ...scope);
    assert.deepEqual(toggle.last.body, { appId: 'app_1', env: 'prod', key: 'checkout', op: 'toggle' });
    const del = await cli('flags', 'delete', 'checkout', ...scope, '--json');
    assert.equal(del.last.method, 'DELETE');
    assert.equal(del.last.url.search, '?appId=app_1&env=prod&key=checkout');
    assert.deepEqual(JSON.parse(del.stdout), { version: 9, changeId: 'chg_2' });
  });

  await t.test('flags bulk: the file gives the body fields, the default idempotency key is stable', async () => {
    const file = join(dir, 'bulk.json');
    writeFileSync(file, JSON.stringify({ flags: { checkout: true, greeting: 'hi' }, privacy: { redact: [] } }));
    const first = await cli('flags', 'bulk', ...scope, '--file', file, '--expected-version', '9');
    const key = first.last.body.idempotencyKey;
    assert.match(key, /^cli-bulk-[0-9a-f]{64}$/);
    assert.equal(first.last.headers['idempotency-key'], key);
    assert.deepEqual(first.last.body, {
      appId: 'app_1',
      env: 'prod',
      flags: { checkout: true, greeting: 'hi' },
      privacy: { redact: [] },
      idempotencyKey: key,
      expectedVersion: 9,
    });
    assert.match(first.stdout, /Applied: version 10, change chg_3/);
    const second = await cli('flags', 'bulk', ...scope, '--file', file, '--expected-version', '9');
    assert.equal(second.last.body.idempotencyKey, key);
    // The key covers every option sent: another (or no) expected version is another request.
    const unguarded = await cli('flags', 'bulk', ...scope, '--file', file);
    assert.notEqual(unguarded.last.body.idempotencyKey, key);
    const later = await cli('flags', 'bulk', ...scope, '--file', file, '--expected-version', '10');
    assert.notEqual(later.last.body.idempotencyKey, key);
    const otherEnv = await cli('flags', 'bulk', '--app', 'app_1', '--env', 'dev', '--file', file);
    assert.notEqual(otherEnv.last.body.idempotencyKey, key);
    writeFileSync(file, JSON.stringify({ appId: 'app_2', flags: {} }));
    const clash = await runCli(['flags', 'bulk', ...scope, '--file', file], env);
    assert.equal(clash.code, 2);
  });

  await t.test('versions list / show / diff', async () => {
    const list = await cli('versions', 'list', ...scope, '--limit', '5');
    assert.equal(list.last.url.search, '?appId=app_1&env=prod&limit=5');
    assert.match(list.stdout, /7\s+2026-01-01T00:00:00.000Z\s+flag.update\s+chg_1\s+user:usr_1/);
    const show = await cli('versions', 'show', '6', ...scope, '--json');
    assert.equal(JSON.parse(show.stdout).version, 6);
    const diff = await cli('versions', 'diff', '6', '7', ...scope);
    assert.equal(diff.last.url.search, '?appId=app_1&env=prod&from=6&to=7');
    assert.match(diff.stdout, /change\s+flag\s+checkout\s+\/value\s+false\s+true/);
  });

  await t.test('config pull: route by key prefix, ETag on stderr, 304 is "not modified" and exit 0', async () => {
    const pulled = await cli('config', 'pull', '--key', 'sdk_good');
    assert.equal(pulled.last.url.pathname, '/api/v1/config');
    assert.equal(pulled.last.headers.authorization, 'Bearer sdk_good');
    assert.deepEqual(JSON.parse(pulled.stdout), envelope);
    assert.match(pulled.stderr, /ETag: "e7"/);
    const pub = await cli('config', 'pull', '--key', 'pub_good');
    assert.equal(pub.last.url.pathname, '/api/v1/public-config');
    const forced = await cli('config', 'pull', '--key', 'sdk_good', '--public');
    assert.equal(forced.last.url.pathname, '/api/v1/public-config');
    const same = await cli('config', 'pull', '--key', 'sdk_good', '--etag', '"e7"');
    assert.equal(same.last.headers['if-none-match'], '"e7"');
    assert.equal(same.stdout, '');
    assert.match(same.stderr, /not modified/);
  });

  await t.test('the legacy error shape gives message, code and resolution', async () => {
    const r = await runCli(['config', 'pull', '--key', 'sdk_bad'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: The key is not valid\. \[INVALID_CREDENTIAL, HTTP 401\]/);
    assert.match(r.stderr, /resolution: Use an active sdk_ key/);
  });

  await t.test('eval posts {flagKey, context} with the sdk key', async () => {
    const r = await cli('eval', 'checkout', '--key', 'sdk_good', '--context', '{"targetingKey":"user-1","plan":"pro"}');
    assert.equal(r.last.headers.authorization, 'Bearer sdk_good');
    assert.deepEqual(r.last.body, { flagKey: 'checkout', context: { targetingKey: 'user-1', plan: 'pro' } });
    assert.match(r.stdout, /value:\s+true/);
    assert.match(r.stdout, /reason:\s+TARGETING_MATCH/);
  });

  await t.test('advanced show / impact / inspect', async () => {
    const show = await cli('advanced', 'show', ...scope);
    assert.equal(show.last.url.search, '?appId=app_1&env=prod');
    assert.equal(JSON.parse(show.stdout).schemaVersion, 1);
    const file = join(dir, 'advanced.json');
    writeFileSync(file, JSON.stringify({ appId: 'app_1', env: 'prod', resources: { flags: {} } }));
    for (const name of ['impact', 'inspect']) {
      const r = await cli('advanced', name, '--file', file);
      assert.equal(r.last.url.pathname, `/api/v1/advanced-config/${name}`);
      assert.deepEqual(r.last.body, { appId: 'app_1', env: 'prod', resources: { flags: {} } });
    }
  });
});

// The CLI's and the console's request and response types come from the OpenAPI document the server
// serves: the committed src/api-types/ must be what `npm run generate:api-types` writes today, and the
// commands built on them (flags set, propose set) must take the same fields.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Command } from 'commander';
import { API_TYPES_DIR, renderApiTypes } from '../../scripts/api-types.js';
import { buildProgram } from '../../src/cli/program.js';
import { cliUser } from '../helpers/cli-runner.js';
import { startTestServer } from '../helpers/e2e-server.js';
import { call, userWithApp } from '../helpers/fixtures.js';

test('src/api-types/ is generated from the served OpenAPI document and up to date', async () => {
  const current = await renderApiTypes();
  const committed = (readdirSync(API_TYPES_DIR, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .sort();
  assert.deepEqual(
    committed,
    [...current.keys()].sort(),
    'the files of src/api-types/ are the generated ones: run `npm run generate:api-types` and commit them',
  );
  for (const [name, text] of current) {
    assert.ok(
      readFileSync(join(API_TYPES_DIR, name), 'utf8') === text,
      `src/api-types/${name} is out of date with the route schemas: run \`npm run generate:api-types\` and commit it`,
    );
    assert.ok(text.split('\n').length <= 500, `src/api-types/${name} has at most 500 lines`);
  }
  // Each route group holds its own operations, by path and by operationId.
  for (const [file, names] of [
    ['routes/flags.ts', ['"/api/v1/flags"', 'patchFlag: {']],
    ['routes/authority.ts', ['"/api/v1/authority/propose"', 'proposeChange: {']],
    ['routes/telemetry.ts', ['"/api/v1/events/batch"']],
    ['routes/experiments.ts', ['"/api/v1/experiments"']],
    ['routes/evaluation.ts', ['"/api/v1/evaluate"']],
  ] as const) {
    for (const name of names) assert.ok(current.get(file)!.includes(name), `${file} holds ${name}`);
  }
  // A shape several operations answer is one named component, referred to by the operations.
  const definitions = [...current].filter(([, text]) => text.includes('\n    Flag: {'));
  assert.deepEqual(
    definitions.map(([name]) => name),
    ['components/shared.ts'],
    'Flag is defined once',
  );
  assert.ok(current.get('routes/flags.ts')!.includes('components["schemas"]["Flag"]'), 'the flag routes refer to Flag');
});

const commandAt = (program: Command, path: string[]): Command => {
  let command = program;
  for (const name of path) {
    const next = command.commands.find((c) => c.name() === name);
    assert.ok(next, `ensign ${path.join(' ')} exists`);
    command = next;
  }
  return command;
};

test('every option of `flags set` exists on `propose set`', () => {
  const program = buildProgram();
  const options = (path: string[]) => new Map(commandAt(program, path).options.map((o) => [o.long!, o]));
  const set = options(['flags', 'set']);
  const propose = options(['propose', 'set']);
  // A proposal is reviewed against a version: --base-version is what --expected-version is to a direct change.
  const counterpart: Record<string, string> = { '--expected-version': '--base-version' };
  const missing = [...set.keys()].filter((name) => !propose.has(counterpart[name] ?? name));
  assert.deepEqual(missing, [], `propose set lacks ${missing.join(', ')}`);
  for (const [name, option] of set) {
    const twin = propose.get(counterpart[name] ?? name)!;
    assert.equal(twin.required, option.required, `${name} takes a value on both`);
    assert.deepEqual(twin.argChoices, option.argChoices, `${name} allows the same choices`);
  }
  assert.ok(set.has('--enabled') && set.has('--off-value') && set.has('--dependencies'));
});

test('propose set sends --enabled, --off-value and --dependencies as flags set would', async (t) => {
  const { app, address, dir } = await startTestServer(t, 'cli-propose-set');
  const s = await userWithApp(app);
  const dep = await call(app, 'PATCH', '/api/v1/flags', {
    token: s.user.token,
    payload: { appId: s.appId, env: 'prod', key: 'dep', type: 'bool', value: true },
  });
  assert.equal(dep.statusCode, 200, dep.body);
  const { ok } = cliUser(address, s.user.token, dir);
  const fields = [
    '--type',
    'string',
    '--value',
    'hi',
    '--enabled',
    'false',
    '--off-value',
    'off',
    '--dependencies',
    '[{"flag":"dep","value":true}]',
    '--description',
    'banner text',
  ];
  const { proposal } = JSON.parse(
    await ok([
      'propose',
      'set',
      'banner',
      '--app',
      s.appId,
      '--env',
      'prod',
      ...fields,
      '--reason',
      'launch',
      '--json',
    ]),
  );
  assert.equal(proposal.change.kind, 'flag.patch');
  assert.deepEqual(proposal.change.body, {
    key: 'banner',
    type: 'string',
    value: 'hi',
    enabled: false,
    offValue: 'off',
    dependencies: [{ flag: 'dep', value: true }],
    description: 'banner text',
  });
  const added = proposal.preview.changes.find((c: { op: string; key: string }) => c.op === 'add' && c.key === 'banner');
  assert.deepEqual(
    [added.after.enabled, added.after.offValue, added.after.dependencies],
    [false, 'off', [{ flag: 'dep', value: true }]],
  );
  // The same options through flags set make the flag the proposal previews.
  const devDep = await call(app, 'PATCH', '/api/v1/flags', {
    token: s.user.token,
    payload: { appId: s.appId, env: 'dev', key: 'dep', type: 'bool', value: true },
  });
  assert.equal(devDep.statusCode, 200, devDep.body);
  const { flag } = JSON.parse(
    await ok(['flags', 'set', 'banner', '--app', s.appId, '--env', 'dev', ...fields, '--json']),
  );
  assert.deepEqual(
    [flag.value, flag.enabled, flag.offValue, flag.dependencies, flag.description],
    ['hi', false, 'off', [{ flag: 'dep', value: true }], 'banner text'],
  );
});

// `npm run lint:deps` (run by `npm test`) refuses the imports the house rules forbid: shown on a small
// tree with one violation of each rule, checked with the project's own .dependency-cruiser.cjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

function cruise(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'ensign-boundaries-'));
  try {
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true } }),
    );
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return spawnSync(
      join(root, 'node_modules/.bin/depcruise'),
      ['src', '--config', join(root, '.dependency-cruiser.cjs')],
      { cwd: dir, encoding: 'utf8', timeout: 120_000 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const allowed = {
  'src/modules/core/alpha/index.ts': "export { alpha } from './alpha.service.js';\n",
  'src/modules/core/alpha/alpha.service.ts': 'export const alpha = 1;\n',
  'src/modules/core/beta/index.ts': "import { alpha } from '../alpha/index.js';\nexport const beta = alpha + 1;\n",
  'src/cli/main.ts': "import { printLine } from './output.js';\nprintLine('hi');\n",
  'src/cli/output.ts': 'export const printLine = (s: string) => console.log(s);\n',
  'src/cli/commands/server.ts': "export { beta } from '../../modules/core/beta/index.js';\n",
  'src/db/dialect.ts': "export const dialect = 'sqlite';\n",
  'src/db/row-locks.ts': "export { dialect } from './dialect.js';\n",
};

test('the boundaries check passes a tree that keeps the rules', () => {
  const run = cruise(allowed);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test('a deep import into another module fails the check (and so npm test)', () => {
  const run = cruise({
    ...allowed,
    'src/modules/core/beta/beta.service.ts':
      "import { alpha } from '../alpha/alpha.service.js';\nexport const b = alpha;\n",
  });
  assert.notEqual(run.status, 0);
  assert.match(
    run.stdout,
    /module-through-index: src\/modules\/core\/beta\/beta\.service\.ts → src\/modules\/core\/alpha\/alpha\.service\.ts/,
  );
});

test('cycles, the CLI reaching server code outside serve/admin, and dialect checks outside db/ fail too', () => {
  const run = cruise({
    ...allowed,
    'src/modules/core/alpha/alpha.service.ts': "import { gamma } from './gamma.js';\nexport const alpha = gamma;\n",
    'src/modules/core/alpha/gamma.ts':
      "import { alpha } from './alpha.service.js';\nexport const gamma = 1;\nexport const again = alpha;\n",
    'src/cli/commands/apps.ts': "export { beta } from '../../modules/core/beta/index.js';\n",
    'src/modules/core/beta/beta.repository.ts': "export { dialect } from '../../../db/dialect.js';\n",
  });
  assert.notEqual(run.status, 0);
  assert.match(run.stdout, /no-circular/);
  assert.match(run.stdout, /cli-talks-http: src\/cli\/commands\/apps\.ts/);
  assert.match(run.stdout, /dialect-only-in-db: src\/modules\/core\/beta\/beta\.repository\.ts/);
});

test('the subsystems stand in layers: core uses none of the others, the planes use only core', () => {
  const run = cruise({
    ...allowed,
    'src/modules/telemetry/gamma/index.ts': 'export const gamma = 1;\n',
    'src/modules/delivery/delta/index.ts': "export { gamma } from '../../telemetry/gamma/index.js';\n",
    'src/modules/experimentation/epsilon/index.ts': "export { gamma } from '../../telemetry/gamma/index.js';\n",
    'src/modules/core/beta/beta.service.ts': "export { gamma } from '../../telemetry/gamma/index.js';\n",
  });
  assert.notEqual(run.status, 0);
  assert.match(run.stdout, /core-uses-no-subsystem: src\/modules\/core\/beta\/beta\.service\.ts/);
  assert.match(run.stdout, /planes-use-core-only: src\/modules\/delivery\/delta\/index\.ts/);
  // experimentation stands above the telemetry plane: its import is allowed.
  assert.doesNotMatch(run.stdout, /experimentation\/epsilon/);
});

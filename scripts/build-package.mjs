#!/usr/bin/env node
// Builds the workspace package in the current directory (npm runs a workspace's scripts there):
// dist/esm (ES modules) and dist/cjs (CommonJS), each with its own declarations, so that `import`
// and `require` both get code and types of their own format (checked by publint and
// @arethetypeswrong/cli in the root `npm test`). Every package under packages/ builds this way.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = process.cwd();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

// A package that reports its own version at run time (the SDK sends it with every events batch)
// keeps it in src/version.ts, written here from package.json, so the two never drift apart.
const versionModule = join(root, 'src', 'version.ts');
if (existsSync(versionModule)) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (!/^[0-9A-Za-z.+-]+$/.test(version))
    throw new Error(`${root}: version ${JSON.stringify(version)} is not a semantic version`);
  // Single-quoted, as Prettier formats the tree (npm test checks it).
  const text = `// Written by scripts/build-package.mjs from package.json at every build: do not edit.\nexport const VERSION = '${version}';\n`;
  if (readFileSync(versionModule, 'utf8') !== text) writeFileSync(versionModule, text);
}

rmSync(join(root, 'dist'), { recursive: true, force: true });
// The two formats compile at once: each tsc is one single-threaded process, and they share nothing.
const statuses = await Promise.all(
  ['tsconfig.json', 'tsconfig.cjs.json'].map(
    (project) =>
      new Promise((resolve) =>
        spawn(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit' }).on('close', resolve),
      ),
  ),
);
const failed = statuses.find((status) => status !== 0);
if (failed !== undefined) process.exit(failed ?? 1);
mkdirSync(join(root, 'dist', 'cjs'), { recursive: true });
writeFileSync(join(root, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');

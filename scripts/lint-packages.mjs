#!/usr/bin/env node
// `npm run lint:packages`: every workspace package under packages/ checked as it would be
// published: publint (strict) for its package.json and files, and @arethetypeswrong/cli for the
// types each entry gives `import` and `require` (node16 profile: TypeScript's legacy node10
// resolution cannot see subpath exports). Packages must be built first (`npm run build:packages`).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const packages = readdirSync('packages', { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => join('packages', d.name))
  .sort();
let failed = false;
for (const dir of packages) {
  for (const [tool, args] of [
    ['publint', [dir, '--strict']],
    ['attw', ['--pack', dir, '--profile', 'node16']],
  ]) {
    const result = spawnSync(join('node_modules', '.bin', tool), args, { stdio: 'inherit' });
    if (result.status !== 0) {
      console.error(`${tool} failed for ${dir}`);
      failed = true;
    }
  }
}
process.exit(failed ? 1 : 0);

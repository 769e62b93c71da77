#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node:test through tsx (Node 20's --test takes no
// globs, so the files are listed here). Extra arguments are passed to node (e.g. --test-only).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filter = process.env.TEST_FILTER;
const files = ['src', 'test'].flatMap((d) => collect(d)).filter((f) => !filter || f.includes(filter)).sort();
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...process.argv.slice(2), ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);

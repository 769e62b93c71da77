#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and the workspace packages (packages/*) with node:test through tsx (Node 20's --test takes no
// globs, so the files are listed here). Extra arguments are passed to node (e.g. --test-only).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

// With ENSIGN_TEST_POSTGRES_URL set (CI sets it), PostgreSQL is expected: an unreachable database
// fails the run at once, instead of leaving it to whichever test first connects (or, for a filtered
// run of SQLite-only files, to nothing at all).
const postgresUrl = process.env.ENSIGN_TEST_POSTGRES_URL;
if (postgresUrl) {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    console.error(`ENSIGN_TEST_POSTGRES_URL is set but PostgreSQL is not reachable (${err instanceof Error ? err.message : err}).`);
    console.error('Start PostgreSQL, or unset ENSIGN_TEST_POSTGRES_URL to run the SQLite half only.');
    process.exit(1);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function collect(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filter = process.env.TEST_FILTER;
const files = ['src', 'test', 'packages'].flatMap((d) => collect(d)).filter((f) => !filter || f.includes(filter)).sort();
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// The usual reporter (spec on a terminal, TAP otherwise), then the ten slowest files at the end.
const reporters = [
  '--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout',
  '--test-reporter', fileURLToPath(new URL('./slowest-files-reporter.mjs', import.meta.url)), '--test-reporter-destination', 'stdout',
];
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters, ...process.argv.slice(2), ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);

#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and the workspace packages (packages/*) with node:test through tsx (Node 20's --test takes no
// globs, so the files are listed here). Extra arguments are passed to node (e.g. --test-only).
//
// Most files share processes: loading the app through tsx costs each process ~2 s of CPU and its
// first app ~1 s more (schemas compiled, decision 0040), more than many files' own tests. So the
// files are dealt into groups of about equal size, each group one process that imports its files in
// turn (their tests run one after another, as in a process of their own). Files that start processes
// or a browser run alone and first: they are the longest, and mostly wait.
//
// TEST_FILTER=part keeps the files whose path contains it; TEST_CONCURRENCY sets how many processes
// run at once (default 3 on this 2-core machine: with groups of about 24 files every phase is
// CPU-bound, and 3 took the tests from 357 s to 338 s against 4, decision 0069; with groups of 12, 4 had
// been faster than 3);
// TEST_ISOLATE=1 runs every file in a process of its own, as node --test does; TEST_TIMEOUT_MS bounds each.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
    console.error(
      `ENSIGN_TEST_POSTGRES_URL is set but PostgreSQL is not reachable (${err instanceof Error ? err.message : err}).`,
    );
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
const files = ['src', 'test', 'packages']
  .flatMap((d) => collect(d))
  .filter((f) => !filter || f.includes(filter))
  .sort();
const concurrency = Number(process.env.TEST_CONCURRENCY ?? '3');

/** Files that start other processes (servers, workers, the CLI, a browser): each in a process of its own. */
const STARTS_PROCESSES = /node:child_process|helpers\/child-process\.js|console-browser\.js|\bspawnCli\(/;
const sizeOf = (file) => statSync(file).size;
const alone = [];
const shared = [];
for (const file of files) {
  if (process.env.TEST_ISOLATE === '1' || STARTS_PROCESSES.test(readFileSync(file, 'utf8'))) alone.push(file);
  else shared.push(file);
}

/**
 * The shared files dealt into groups: largest first, each to the group with the least so far (a
 * file's size stands for its tests' time), enough groups that each process has a few to share its
 * start-up cost and the processes finish close together.
 */
function groupsOf(list, count) {
  const groups = Array.from({ length: Math.min(count, list.length) }, () => ({ files: [], size: 0 }));
  for (const file of [...list].sort((a, b) => sizeOf(b) - sizeOf(a))) {
    const smallest = groups.reduce((min, g) => (g.size < min.size ? g : min));
    smallest.files.push(file);
    smallest.size += sizeOf(file);
  }
  return groups.filter((g) => g.files.length > 0).sort((a, b) => b.size - a.size);
}

const FILES_PER_GROUP = 24;
const groupDir = mkdtempSync(join(tmpdir(), 'ensign-test-groups-'));
process.on('exit', () => rmSync(groupDir, { recursive: true, force: true }));
const entries = groupsOf(shared, Math.ceil(shared.length / FILES_PER_GROUP)).map((group, i) => {
  const entry = join(groupDir, `ensign-test-group-${String(i + 1).padStart(2, '0')}.mjs`);
  writeFileSync(entry, group.files.map((f) => `import ${JSON.stringify(pathToFileURL(resolve(f)).href)};\n`).join(''));
  return entry;
});

// The usual reporter (spec on a terminal, TAP otherwise), then the ten slowest files at the end.
const reporters = [
  '--test-reporter',
  process.stdout.isTTY ? 'spec' : 'tap',
  '--test-reporter-destination',
  'stdout',
  '--test-reporter',
  fileURLToPath(new URL('./slowest-files-reporter.mjs', import.meta.url)),
  '--test-reporter-destination',
  'stdout',
];
// The longest first (a file's size stands for its time here too), so none is left running alone at the end.
const longestFirst = [...alone].sort((a, b) => sizeOf(b) - sizeOf(a));
// A hang (a promise that never settles while a socket keeps the process alive) fails its file after
// this long, named in the report, instead of holding CI until its 90-minute limit. It bounds a whole
// process (node:test times the file as a test too), so it is well above the longest group's few minutes.
const timeoutMs = Number(process.env.TEST_TIMEOUT_MS ?? 20 * 60_000);
const args = [
  '--import',
  'tsx',
  '--test',
  `--test-concurrency=${concurrency}`,
  `--test-timeout=${timeoutMs}`,
  ...reporters,
  ...process.argv.slice(2),
  ...longestFirst,
  ...entries,
];
// The test processes keep their PostgreSQL databases for their next tests and drop them when done
// (test/helpers/database-pool.ts); the run's id prefixes those names, so the databases a process that
// crashed left behind are dropped here, and never another run's.
const runId = randomBytes(4).toString('hex');
const result = spawnSync(process.execPath, args, {
  stdio: 'inherit',
  env: { ...process.env, ENSIGN_TEST_RUN_ID: runId },
});
if (postgresUrl) await dropLeftDatabases(postgresUrl, `t_${runId}_`);
process.exit(result.status ?? 1);

async function dropLeftDatabases(url, prefix) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]);
    for (const { datname } of rows)
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(datname)} WITH (FORCE)`);
    if (rows.length > 0) console.log(`# dropped ${rows.length} test databases left by processes that ended early`);
  } catch (err) {
    console.error(`could not drop the run's leftover test databases: ${err instanceof Error ? err.message : err}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

// The test runner when PostgreSQL is expected (ENSIGN_TEST_POSTGRES_URL set, as CI sets it) but not
// reachable: the run fails and says why, instead of passing on SQLite alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

test('an unreachable ENSIGN_TEST_POSTGRES_URL fails the run, even when only SQLite-only files are selected', () => {
  const run = spawnSync(process.execPath, ['scripts/run-tests.mjs'], {
    env: {
      ...process.env,
      ENSIGN_TEST_POSTGRES_URL: 'postgres://postgres@127.0.0.1:1/test',
      TEST_FILTER: 'packages/engine/src/bucketing.test.ts',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stderr, /ENSIGN_TEST_POSTGRES_URL is set but PostgreSQL is not reachable/);
});

// Real processes on one database (SQLite file or PostgreSQL schema): two runner processes share a
// queue without running any job twice, and a process killed with SIGKILL mid-job leaves the job to
// be run by another once its lease expires.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startChild } from '../../test/helpers/child-process.js';
import { createTestDatabase, dialects, type TestContext, type TestDatabase } from '../../test/helpers/test-app.js';
import { enqueue, findJob } from './index.js';
import { waitFor } from '../../test/helpers/polling.js';

async function worker(
  t: TestContext,
  database: TestDatabase,
  logFile: string,
  env: Record<string, string>,
): Promise<ChildProcess> {
  const databaseEnv = { JOB_DB_URL: database.url, ...(database.pgSchema ? { JOB_PG_SCHEMA: database.pgSchema } : {}) };
  const started = await startChild(
    t,
    'test/helpers/job-worker.ts',
    { ...process.env, ...databaseEnv, JOB_LOG: logFile, ...env },
    (out) => (out.includes('ready\n') ? true : null),
  );
  return started.child;
}

/** Child processes start a Node runtime each: they get longer than a check inside this process. */
const CHILD_TIMEOUT_MS = 30_000;

const linesOf = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' '))
    : [];

for (const dialect of dialects) {
  describe(`jobs across processes on ${dialect}`, () => {
    async function setup(t: TestContext) {
      const database = await createTestDatabase(dialect);
      const dir = mkdtempSync(join(tmpdir(), 'ensign-jobs-'));
      t.after(async () => {
        await database.handle.close();
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      });
      return { database, db: database.handle.db, logFile: join(dir, 'runs.log') };
    }

    test('two processes share one queue and never run a job twice', async (t) => {
      const { database, db, logFile } = await setup(t);
      const settings = { JOB_CONCURRENCY: '3', JOB_POLL_MS: '20', JOB_DELAY_MS: '30' };
      const [a, b] = await Promise.all([
        worker(t, database, logFile, settings),
        worker(t, database, logFile, settings),
      ]);
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) ids.push((await enqueue(db, { kind: 'test.record', payload: { i } })).id);
      await waitFor(
        async () => {
          const done = await db
            .selectFrom('jobs')
            .select('id')
            .where('kind', '=', 'test.record')
            .where('state', '=', 'succeeded')
            .execute();
          return done.length === ids.length;
        },
        CHILD_TIMEOUT_MS,
        { what: 'every job succeeded' },
      );
      const runs = linesOf(logFile).filter(([event]) => event === 'run');
      assert.equal(runs.length, ids.length, 'one run per job');
      assert.deepEqual(new Set(runs.map(([, id]) => id)), new Set(ids));
      const pids = new Set(runs.map(([, , pid]) => Number(pid)));
      assert.deepEqual(pids, new Set([a.pid, b.pid]), 'both processes did some of the work');
    });

    test('a process killed mid-job leaves the job to another process once its lease expires', async (t) => {
      const { database, db, logFile } = await setup(t);
      const victim = await worker(t, database, logFile, { JOB_HANG: '1', JOB_LEASE_MS: '1500' });
      const { id } = await enqueue(db, { kind: 'test.slow', payload: null });
      await waitFor(() => linesOf(logFile).some(([event, job]) => event === 'start' && job === id), CHILD_TIMEOUT_MS, {
        what: 'the job started',
      });
      victim.kill('SIGKILL');
      await new Promise((r) => victim.once('exit', r));
      assert.equal((await findJob(db, id))?.state, 'running', 'the killed process still holds the lease');
      const heir = await worker(t, database, logFile, { JOB_LEASE_MS: '1500' });
      await waitFor(async () => (await findJob(db, id))?.state === 'succeeded', CHILD_TIMEOUT_MS, {
        what: 'the heir finished the job',
      });
      const job = await findJob(db, id);
      assert.equal(job?.attempts, 2);
      assert.deepEqual(linesOf(logFile), [
        ['start', id, String(victim.pid)],
        ['start', id, String(heir.pid)],
        ['run', id, String(heir.pid)],
      ]);
    });
  });
}

// A job-runner process for the multi-process tests of src/jobs: opens the test database named by the
// environment, runs jobs of the test kinds and appends one line per handler call to a log file.
//   JOB_DB_URL, JOB_PG_SCHEMA?  the database (and PostgreSQL schema) to share
//   JOB_LOG                      file the handlers append "<event> <jobId> <pid>" lines to
//   JOB_HANG=1                   test.slow never finishes (the process is killed mid-job)
//   JOB_LEASE_MS, JOB_CONCURRENCY, JOB_POLL_MS, JOB_DELAY_MS
import { appendFileSync } from 'node:fs';
import { createDb } from '../../src/db/create-db.js';
import { JobRunner } from '../../src/jobs/index.js';

const env = process.env;
const handle = createDb(env.JOB_DB_URL!, env.JOB_PG_SCHEMA ? { pgSchema: env.JOB_PG_SCHEMA, poolSize: 4 } : {});
const log = (event: string, id: string) => appendFileSync(env.JOB_LOG!, `${event} ${id} ${process.pid}\n`);
const delayMs = Number(env.JOB_DELAY_MS ?? 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const runner = new JobRunner({
  db: handle.db,
  concurrency: Number(env.JOB_CONCURRENCY ?? 2),
  pollIntervalMs: Number(env.JOB_POLL_MS ?? 20),
  leaseMs: Number(env.JOB_LEASE_MS ?? 30_000),
});
runner.register('test.record', async (job) => {
  log('run', job.id);
  await sleep(delayMs);
});
runner.register('test.slow', async (job) => {
  log('start', job.id);
  if (env.JOB_HANG === '1') await new Promise(() => undefined);
  log('run', job.id);
});

// The runner's timers do not hold the process open (the server's listener does that in production).
const keepAlive = setInterval(() => undefined, 1 << 30);
process.once(
  'SIGTERM',
  () =>
    void (async () => {
      await runner.stop(2000);
      await handle.close();
      clearInterval(keepAlive);
      process.exit(0);
    })(),
);
runner.start();
process.stdout.write('ready\n');

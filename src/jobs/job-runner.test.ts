// The job runner on both engines, driven by hand (runDue) with a moved clock: leasing, dedupe,
// retries with backoff, dead jobs, expired and renewed leases, recurring jobs, graceful stop.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  createTestDatabase,
  buildTestApp,
  dialects,
  type TestContext,
  type TestDatabase,
} from '../../test/helpers/test-app.js';
import { sql } from 'kysely';
import { inTransaction } from '../db/transaction.js';
import {
  DEFAULT_BACKOFF,
  JobRunner,
  PermanentJobError,
  enqueue,
  findJob,
  recurringKeyOf,
  retryDelayMs,
  type JobRunnerOptions,
} from './index.js';
import { testClock } from '../../test/helpers/clock.js';
import { waitFor } from '../../test/helpers/polling.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');

async function setup(t: TestContext, dialect: (typeof dialects)[number]) {
  const database = await createTestDatabase(dialect);
  const handles = [database.handle];
  t.after(async () => {
    for (const h of handles) await h.close();
    await database.drop();
  });
  const clock = testClock(T0);
  const now = clock.now;
  /** A runner on its own connection, as another process would have. */
  const runner = (options: Partial<JobRunnerOptions> = {}) => {
    const handle = database.open();
    handles.push(handle);
    return new JobRunner({ db: handle.db, now, random: () => 0.5, ...options });
  };
  return { database, db: database.handle.db, now, advance: clock.advance, runner };
}

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

/** A job that runs until released, leased by runner a (lease 1 s, renewed every 10 ms); b waits for it. */
async function longRunningJob(t: TestContext, dialect: (typeof dialects)[number], kind: string) {
  const context = await setup(t, dialect);
  const { db, now, advance, runner } = context;
  const gate = deferred();
  const a = runner({ leaseMs: 1000, renewEveryMs: 10 }).register(kind, () => gate.promise);
  const b = runner({ leaseMs: 1000 }).register(kind, async () => undefined);
  const { id } = await enqueue(db, { kind, payload: null }, now);
  const running = a.runDue();
  await waitFor(async () => (await findJob(db, id))?.state === 'running');
  return {
    ...context,
    id,
    /** Moves the clock 800 ms: the lease is renewed to a second from then, and b cannot take the job. */
    async renewedAndKept() {
      advance(800);
      const expected = new Date(now() + 1000).toISOString();
      await waitFor(async () => (await findJob(db, id))?.leaseExpiresAt === expected);
      assert.equal(await b.runDue(), 0);
    },
    async finish() {
      gate.resolve();
      await running;
      assert.equal((await findJob(db, id))?.attempts, 1);
    },
  };
}

test('jobs: backoff grows exponentially, stays within its bounds and is capped', () => {
  const policy = { baseMs: 1000, maxMs: 10_000 };
  assert.equal(
    retryDelayMs(1, policy, () => 0),
    500,
  );
  assert.equal(
    retryDelayMs(1, policy, () => 0.999999),
    1000,
  );
  assert.equal(
    retryDelayMs(3, policy, () => 0),
    2000,
  );
  assert.equal(
    retryDelayMs(3, policy, () => 0.999999),
    4000,
  );
  assert.equal(
    retryDelayMs(60, policy, () => 0.999999),
    10_000,
  );
  assert.equal(
    retryDelayMs(2000, DEFAULT_BACKOFF, () => 0),
    DEFAULT_BACKOFF.maxMs / 2,
  );
});

for (const dialect of dialects) {
  describe(`jobs on ${dialect}`, () => {
    test('an enqueued job runs once with its payload and succeeds', async (t) => {
      const { db, now, runner } = await setup(t, dialect);
      const seen: unknown[] = [];
      const r = runner().register(
        'test.echo',
        async (job) => void seen.push({ payload: job.payload, attempt: job.attempt }),
      );
      const { id, deduplicated } = await enqueue(db, { kind: 'test.echo', payload: { runId: 'run_1', n: 2 } }, now);
      assert.equal(deduplicated, false);
      assert.equal(await r.runDue(), 1);
      assert.equal(await r.runDue(), 0);
      assert.deepEqual(seen, [{ payload: { runId: 'run_1', n: 2 }, attempt: 1 }]);
      const job = await findJob(db, id);
      assert.equal(job?.state, 'succeeded');
      assert.equal(job?.attempts, 1);
      assert.equal(job?.leaseOwner, null);
      assert.equal(job?.finishedAt, new Date(T0).toISOString());
    });

    test('a job enqueued in a transaction that rolls back never exists; one that commits does', async (t) => {
      const { db, now } = await setup(t, dialect);
      let rolledBack = '';
      await assert.rejects(
        inTransaction(db, async (trx) => {
          rolledBack = (await enqueue(trx, { kind: 'test.echo', payload: 1 }, now)).id;
          throw new Error('the caller failed');
        }),
        /the caller failed/,
      );
      assert.equal(await findJob(db, rolledBack), null);
      const kept = await inTransaction(db, (trx) => enqueue(trx, { kind: 'test.echo', payload: 2 }, now));
      assert.equal((await findJob(db, kept.id))?.state, 'queued');
    });

    test('a dedupe key allows one queued job; once it runs, the next can be queued', async (t) => {
      const { db, now, runner } = await setup(t, dialect);
      const first = await enqueue(db, { kind: 'test.agg', payload: { n: 1 }, dedupeKey: 'agg:exp_1' }, now);
      const again = await inTransaction(db, (trx) =>
        enqueue(trx, { kind: 'test.agg', payload: { n: 2 }, dedupeKey: 'agg:exp_1' }, now),
      );
      assert.deepEqual(again, { id: first.id, deduplicated: true });
      const other = await enqueue(db, { kind: 'test.agg', payload: {}, dedupeKey: 'agg:exp_2' }, now);
      assert.notEqual(other.id, first.id);
      const gate = deferred();
      const r = runner().register('test.agg', () => gate.promise);
      const running = r.runDue();
      await waitFor(async () => (await findJob(db, first.id))?.state === 'running');
      // Work that arrives while the job runs gets a queued job of its own.
      const next = await enqueue(db, { kind: 'test.agg', payload: { n: 3 }, dedupeKey: 'agg:exp_1' }, now);
      assert.equal(next.deduplicated, false);
      gate.resolve();
      await running;
      assert.equal((await findJob(db, first.id))?.state, 'succeeded');
      assert.equal((await findJob(db, next.id))?.state, 'queued');
    });

    test('a job is not run before its runAt', async (t) => {
      const { db, now, advance, runner } = await setup(t, dialect);
      let runs = 0;
      const r = runner().register('test.later', async () => void runs++);
      await enqueue(db, { kind: 'test.later', payload: null, runAt: T0 + 60_000 }, now);
      assert.equal(await r.runDue(), 0);
      advance(59_999);
      assert.equal(await r.runDue(), 0);
      advance(1);
      assert.equal(await r.runDue(), 1);
      assert.equal(runs, 1);
    });

    test('a runner leases only the kinds it has handlers for', async (t) => {
      const { db, now, runner } = await setup(t, dialect);
      const { id } = await enqueue(db, { kind: 'test.unknown', payload: null }, now);
      const r = runner().register('test.known', async () => undefined);
      assert.equal(await r.runDue(), 0);
      assert.equal((await findJob(db, id))?.state, 'queued');
    });

    test('concurrent runners never run a job twice', async (t) => {
      const { db, now, runner } = await setup(t, dialect);
      const runs = new Map<string, number>();
      const handler = async (job: { id: string }) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, Math.random() * 3));
      };
      const runners = [1, 2, 3].map(() => runner({ concurrency: 4 }).register('test.count', handler));
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) ids.push((await enqueue(db, { kind: 'test.count', payload: { i } }, now)).id);
      await Promise.all(runners.map((r) => r.drain()));
      assert.equal(runs.size, 60);
      assert.ok(
        [...runs.values()].every((n) => n === 1),
        'every job ran exactly once',
      );
      for (const id of ids) assert.equal((await findJob(db, id))?.state, 'succeeded');
    });

    test('a failing handler is retried with exponential backoff, then the job is dead', async (t) => {
      const { db, now, advance, runner } = await setup(t, dialect);
      const attempts: number[] = [];
      const backoff = { baseMs: 1000, maxMs: 60_000 };
      const r = runner({ backoff }).register('test.fail', async (job) => {
        attempts.push(job.attempt);
        throw new Error(`boom ${job.attempt}`);
      });
      const { id } = await enqueue(db, { kind: 'test.fail', payload: null, maxAttempts: 3 }, now);
      assert.equal(await r.runDue(), 1);
      let job = await findJob(db, id);
      assert.equal(job?.state, 'failed');
      assert.equal(job?.lastError, 'Error: boom 1');
      // random() is 0.5: half the ceiling plus a quarter, i.e. 750 ms after the first failure.
      assert.equal(job?.runAt, new Date(T0 + 750).toISOString());
      advance(749);
      assert.equal(await r.runDue(), 0, 'not before its backoff');
      advance(1);
      assert.equal(await r.runDue(), 1);
      job = await findJob(db, id);
      assert.equal(job?.state, 'failed');
      assert.equal(job?.runAt, new Date(T0 + 750 + 1500).toISOString(), 'the second delay is twice the first');
      advance(1500);
      assert.equal(await r.runDue(), 1);
      job = await findJob(db, id);
      assert.equal(job?.state, 'dead');
      assert.equal(job?.attempts, 3);
      assert.equal(job?.lastError, 'Error: boom 3');
      advance(3_600_000);
      assert.equal(await r.runDue(), 0, 'a dead job never runs again');
      assert.deepEqual(attempts, [1, 2, 3]);
    });

    test('a PermanentJobError makes the job dead without retries', async (t) => {
      const { db, now, runner } = await setup(t, dialect);
      const r = runner().register('test.bad', async () => {
        throw new PermanentJobError('the payload names no experiment');
      });
      const { id } = await enqueue(db, { kind: 'test.bad', payload: null, maxAttempts: 5 }, now);
      await r.runDue();
      const job = await findJob(db, id);
      assert.equal(job?.state, 'dead');
      assert.equal(job?.attempts, 1);
      assert.match(job?.lastError ?? '', /names no experiment/);
    });

    test('a lease that expires is run again by another runner; the first cannot record over it', async (t) => {
      const { db, now, advance, runner } = await setup(t, dialect);
      const gate = deferred();
      const a = runner({ leaseMs: 1000, renewEveryMs: 3_600_000 }).register('test.stall', () => gate.promise);
      const byB: number[] = [];
      const b = runner({ leaseMs: 1000 }).register('test.stall', async (job) => void byB.push(job.attempt));
      const { id } = await enqueue(db, { kind: 'test.stall', payload: null }, now);
      const stalled = a.runDue();
      await waitFor(async () => (await findJob(db, id))?.state === 'running');
      assert.equal(await b.runDue(), 0, 'the lease still holds');
      advance(1000);
      assert.equal(await b.runDue(), 1, 'an expired lease is abandoned work');
      assert.deepEqual(byB, [2]);
      gate.resolve();
      await stalled;
      const job = await findJob(db, id);
      assert.equal(job?.state, 'succeeded');
      assert.equal(job?.attempts, 2);
    });

    test('a running handler renews its lease, so it is not taken away', async (t) => {
      const job = await longRunningJob(t, dialect, 'test.long');
      for (let i = 0; i < 3; i++) await job.renewedAndKept();
      await job.finish();
    });

    test(
      'renewals of one job never overlap, so a late one cannot shorten the lease',
      {
        skip: dialect !== 'postgres' && 'SQLite runs one statement at a time in the process',
      },
      async (t) => {
        const job = await longRunningJob(t, dialect, 'test.slow');
        const { database, db, id } = job;
        // The database is slow for a while: the job's row is locked, so a renewal waits. Renewals that
        // started every interval regardless would pile up, each with the clock it read.
        const holder = await database.handle.pgPool!.connect();
        let mostWaiting = 0;
        try {
          await holder.query('BEGIN');
          await holder.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [id]);
          // Read outside the holder's transaction, which would see one snapshot of the activity.
          const waiting = async () =>
            (
              await sql<{
                waiting: number;
              }>`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE application_name = ${database.pgSchema} AND wait_event_type = 'Lock' AND query ILIKE 'update "jobs"%'`.execute(
                db,
              )
            ).rows[0]!.waiting;
          await waitFor(async () => (await waiting()) > 0);
          // Many intervals pass while the first renewal waits.
          for (let i = 0; i < 15; i++) {
            await new Promise((r) => setTimeout(r, 20));
            mostWaiting = Math.max(mostWaiting, await waiting());
          }
        } finally {
          await holder.query('COMMIT');
          holder.release();
        }
        assert.equal(mostWaiting, 1, 'one renewal at a time waited for the row');
        await job.renewedAndKept();
        await job.finish();
      },
    );

    test('a runner that lost its lease is told through the abort signal', async (t) => {
      const { db, now, advance, runner } = await setup(t, dialect);
      let aborted: unknown = null;
      const a = runner({ leaseMs: 1000, renewEveryMs: 10 }).register(
        'test.abortable',
        (job) =>
          new Promise<void>((_, reject) => {
            job.signal.addEventListener('abort', () => {
              aborted = job.signal.reason;
              reject(job.signal.reason);
            });
          }),
      );
      const b = runner({ leaseMs: 60_000 }).register('test.abortable', async () => undefined);
      const { id } = await enqueue(db, { kind: 'test.abortable', payload: null }, now);
      const first = a.runDue();
      await waitFor(async () => (await findJob(db, id))?.state === 'running');
      // The process stalled past its lease (the clock jumps between two renewals): the next renewal
      // finds the lease expired and aborts the handler, and the job is free for another runner.
      advance(5000);
      await waitFor(() => aborted !== null);
      assert.equal(await b.runDue(), 1);
      await first;
      const job = await findJob(db, id);
      assert.equal(job?.state, 'succeeded');
      assert.equal(job?.attempts, 2);
    });

    test('a lease that expires on the last attempt makes the job dead instead of running it again', async (t) => {
      const { db, now, advance, runner } = await setup(t, dialect);
      const gate = deferred();
      const a = runner({ leaseMs: 1000, renewEveryMs: 3_600_000 }).register('test.poison', () => gate.promise);
      let runsOnB = 0;
      const b = runner({ leaseMs: 1000 }).register('test.poison', async () => void runsOnB++);
      const { id } = await enqueue(db, { kind: 'test.poison', payload: null, maxAttempts: 1 }, now);
      const stalled = a.runDue();
      await waitFor(async () => (await findJob(db, id))?.state === 'running');
      advance(1000);
      assert.equal(await b.runDue(), 0);
      assert.equal(runsOnB, 0);
      const job = await findJob(db, id);
      assert.equal(job?.state, 'dead');
      assert.match(job?.lastError ?? '', /lease expired/);
      gate.resolve();
      await stalled;
      assert.equal((await findJob(db, id))?.state, 'dead', 'the stalled runner does not revive it');
    });

    test('a recurring job is queued once and again after each run', async (t) => {
      const { db, advance, runner } = await setup(t, dialect);
      let runs = 0;
      const r = runner().every('test.purge', 60_000, async () => void runs++, { scope: 'all' });
      const other = runner().every('test.purge', 60_000, async () => void runs++);
      await r.ensureSchedules();
      await other.ensureSchedules();
      const queued = await db
        .selectFrom('jobs')
        .selectAll()
        .where('dedupe_key', '=', recurringKeyOf('test.purge'))
        .execute();
      assert.equal(queued.length, 1, 'two processes starting together queue it once');
      assert.deepEqual(JSON.parse(queued[0]!.payload), { scope: 'all' });
      assert.equal(await r.runDue(), 1);
      assert.equal(await r.runDue(), 0);
      await r.ensureSchedules();
      advance(59_999);
      assert.equal(await other.runDue(), 0);
      advance(1);
      assert.equal(await other.runDue(), 1);
      assert.equal(runs, 2);
      const pending = await db.selectFrom('jobs').select(['state', 'run_at']).where('state', '=', 'queued').execute();
      assert.deepEqual(pending, [{ state: 'queued', run_at: new Date(T0 + 120_000).toISOString() }]);
    });

    test('pollSoon: work queued while the runner waits for its next poll is taken at once, not a poll interval later', async (t) => {
      const { database, db, now, runner } = await setup(t, dialect);
      const ran: string[] = [];
      // The runner's statements are counted: its first poll has looked once one has answered.
      let answered = 0;
      const counted = database.open().db.withPlugin({
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          answered++;
          return args.result;
        },
      });
      const r = runner({ db: counted, pollIntervalMs: 60_000, concurrency: 2 }).register('test.work', async (job) => {
        ran.push(job.id);
      });
      r.start();
      t.after(async () => {
        await r.stop(1000);
        await counted.destroy();
      });
      // The first poll found nothing (on a slow machine it may start well after start()); the next
      // one is a minute away.
      await waitFor(() => answered > 0);
      const { id } = await enqueue(db, { kind: 'test.work', payload: null }, now);
      await new Promise((res) => setTimeout(res, 100));
      assert.deepEqual(ran, [], 'not before a poll');
      r.pollSoon();
      await waitFor(() => ran.length === 1, 3000);
      assert.deepEqual(ran, [id]);
    });

    test('stop waits for running handlers; past its timeout it aborts them and leaves the lease to expire', async (t) => {
      const { db, now, runner } = await setup(t, dialect);
      let finished = 0;
      const r = runner({ pollIntervalMs: 10, concurrency: 1 }).register('test.work', async () => {
        await new Promise((res) => setTimeout(res, 80));
        finished++;
      });
      const { id } = await enqueue(db, { kind: 'test.work', payload: null }, now);
      r.start();
      await waitFor(() => r.active === 1);
      await r.stop(5000);
      assert.equal(finished, 1);
      assert.equal((await findJob(db, id))?.state, 'succeeded');

      let signal: AbortSignal | null = null;
      const s = runner({ pollIntervalMs: 10 }).register('test.stuck', (job) => {
        signal = job.signal;
        return new Promise(() => undefined);
      });
      const stuck = await enqueue(db, { kind: 'test.stuck', payload: null }, now);
      s.start();
      await waitFor(() => s.active === 1);
      await s.stop(30);
      assert.equal((signal as AbortSignal | null)?.aborted, true);
      assert.equal(
        (await findJob(db, stuck.id))?.state,
        'running',
        'its lease will expire and another process runs it',
      );
      await enqueue(db, { kind: 'test.stuck', payload: null }, now);
      assert.equal(await s.runDue(), 0, 'a stopped runner leases nothing');
    });
  });

  describe(`jobs in the app on ${dialect}`, () => {
    test('the app runner starts when the server listens, runs jobs and stops on close', async (t) => {
      const { app, database } = await buildTestApp(t, {
        dialect,
        config: { jobs: { concurrency: 1, pollIntervalMs: 50 } },
      });
      const seen: string[] = [];
      app.jobs.register('test.app', async (job) => void seen.push(job.id));
      const { id } = await enqueue(database.handle.db, { kind: 'test.app', payload: null });
      assert.equal(seen.length, 0, 'nothing runs before listen');
      await app.listen({ host: '127.0.0.1', port: 0 });
      await waitFor(() => seen.length === 1);
      assert.deepEqual(seen, [id]);
      await waitFor(
        async () =>
          (await database.handle.db
            .selectFrom('jobs')
            .select('id')
            .where('kind', '=', 'jobs.purge-finished')
            .executeTakeFirst()) !== undefined,
      );
    });

    test('finished jobs older than the retention are purged by the maintenance job', async (t) => {
      const clock = testClock(T0);
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const db = database.handle.db;
      app.jobs.register('test.old', async () => undefined);
      const old = await enqueue(db, { kind: 'test.old', payload: null }, clock.now);
      await app.jobs.runDue();
      clock.advance(8 * 24 * 3600 * 1000);
      const recent = await enqueue(db, { kind: 'test.old', payload: null }, clock.now);
      await app.jobs.runDue();
      await app.jobs.ensureSchedules();
      await app.jobs.runDue();
      assert.equal(await findJob(db, old.id), null);
      assert.equal((await findJob(db, recent.id))?.state, 'succeeded');
    });
  });
}

export type { TestDatabase };

// Runs leased jobs. A runner leases due jobs of the kinds it has handlers for, renews each lease while
// its handler runs, records the outcome only while it still holds the lease (a runner that stalled
// past its lease and lost the job to another changes nothing), retries failures with exponential
// backoff, and stops gracefully. Several runners, in one process or many, share one jobs table.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { inTransaction } from '../db/transaction.js';
import { DEFAULT_BACKOFF, retryDelayMs, type BackoffPolicy } from './backoff.js';
import { enqueue, recurringKeyOf } from './enqueue.js';
import {
  buryExhausted,
  finishJob,
  hasLeasableJobs,
  hasPendingJob,
  leaseJobs,
  renewLease,
  type JobOutcome,
  type LeaseToken,
} from './jobs.repository.js';
import type { JobsTable } from './jobs.table.js';

export interface JobContext<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  /** 1 on the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the lease is lost or the runner gives up waiting at stop: stop work, it will run again. */
  signal: AbortSignal;
}

export type JobHandler<P = unknown> = (job: JobContext<P>) => Promise<void>;

/** A job that went dead, as its kind's `onDead` hook sees it. */
export interface DeadJob<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  /** Why: the last attempt's error, or the lease that expired on the last attempt. */
  error: string;
}

export interface JobKindOptions<P = unknown> {
  /**
   * Runs in the transaction that makes a job of this kind dead (its last attempt failed, or its lease
   * expired on the last attempt: the process running it died or stalled), so the domain record the
   * job was working on never stays in a working state with nothing left to finish it.
   */
  onDead?: (trx: Transaction<Database>, job: DeadJob<P>) => Promise<void>;
}

/** Thrown by a handler when retrying cannot help (the input is invalid): the job goes dead at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

export interface JobLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobRunnerOptions {
  db: Kysely<Database>;
  /** The clock of run_at, leases and backoff; tests move it instead of sleeping. */
  now?: () => number;
  /** Identifies this runner in lease_owner; default host:pid:random. */
  owner?: string;
  /** Handlers running at once in this runner. */
  concurrency?: number;
  /** How often the started runner looks for due jobs (real time). */
  pollIntervalMs?: number;
  /** How long a lease lasts without renewal (clock time). */
  leaseMs?: number;
  /** How often a running handler's lease is renewed (real time); default a third of the lease. */
  renewEveryMs?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  log?: JobLogger;
}

interface Registration {
  handler: JobHandler<any>;
  onDead?: JobKindOptions<any>['onDead'];
  /** Recurring: the next occurrence is queued this long after one finishes. */
  everyMs?: number;
  payload?: unknown;
}

interface Running {
  token: LeaseToken;
  controller: AbortController;
  renewal: NodeJS.Timeout;
  done: Promise<void>;
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_STOP_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 2000;
const silent: JobLogger = { warn: () => undefined, error: () => undefined };

function messageOf(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, MAX_ERROR_LENGTH);
}

export class JobRunner {
  readonly owner: string;
  private readonly db: Kysely<Database>;
  private readonly now: () => number;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly renewEveryMs: number;
  private readonly backoff: BackoffPolicy;
  private readonly random: () => number;
  private readonly log: JobLogger;
  private readonly handlers = new Map<string, Registration>();
  private readonly running = new Map<string, Running>();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopping = false;
  private polling: Promise<unknown> | null = null;
  /** A slot freed while a poll ran: poll again as soon as it ends. */
  private pollAgain = false;

  constructor(options: JobRunnerOptions) {
    this.db = options.db;
    this.now = options.now ?? Date.now;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.concurrency = options.concurrency ?? 2;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.renewEveryMs = options.renewEveryMs ?? Math.max(1, Math.floor(this.leaseMs / 3));
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? silent;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1)
      throw new Error('job runner concurrency must be a positive integer');
  }

  /** Handles jobs of `kind`. One handler per kind; register before start. */
  register<P>(kind: string, handler: JobHandler<P>, options: JobKindOptions<P> = {}): this {
    if (this.handlers.has(kind)) throw new Error(`a handler for job kind ${kind} is already registered`);
    this.handlers.set(kind, { handler, ...(options.onDead ? { onDead: options.onDead } : {}) });
    return this;
  }

  /**
   * A recurring job ("retention purge hourly"): one dedupe-keyed job of `kind`, queued again `everyMs`
   * after each run finishes (succeeded or dead), in the transaction that records the outcome.
   */
  every<P>(kind: string, everyMs: number, handler: JobHandler<P>, payload?: P): this {
    if (!(everyMs > 0)) throw new Error('a recurring job needs a positive interval');
    this.register(kind, handler);
    this.handlers.get(kind)!.everyMs = everyMs;
    this.handlers.get(kind)!.payload = payload;
    return this;
  }

  /** Handlers running now. */
  get active(): number {
    return this.running.size;
  }

  /** Queues the first occurrence of every recurring job that has none waiting or running. */
  async ensureSchedules(): Promise<void> {
    for (const [kind, registration] of this.handlers) {
      if (registration.everyMs === undefined) continue;
      const dedupeKey = recurringKeyOf(kind);
      if (await hasPendingJob(this.db, dedupeKey)) continue;
      await enqueue(this.db, { kind, payload: registration.payload ?? null, dedupeKey }, this.now);
    }
  }

  /**
   * Work was just queued (and committed) that this runner may take: look for it now rather than at
   * the next poll, if a slot is free. Does nothing on a runner that was not started.
   */
  pollSoon(): void {
    if (this.running.size < this.concurrency) this.schedulePoll(0);
  }

  /** Starts polling (the server calls this when it listens). */
  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    this.ensureSchedules().catch((err) => this.log.warn({ err }, 'could not queue recurring jobs'));
    this.schedulePoll(0);
  }

  /**
   * Leases what is due (up to free capacity) and waits for those handlers to finish. Tests drive a
   * runner that was never started with this; returns how many jobs were leased.
   */
  async runDue(): Promise<number> {
    const started = await this.leaseAndDispatch();
    await Promise.allSettled(started.map((r) => r.done));
    return started.length;
  }

  /** Runs due jobs until none is left (jobs queued by handlers, retries made due by a moved clock). */
  async drain(maxRounds = 100): Promise<number> {
    let total = 0;
    for (let round = 0; round < maxRounds; round++) {
      const n = await this.runDue();
      if (n === 0) break;
      total += n;
    }
    return total;
  }

  /**
   * Stops leasing and waits up to `timeoutMs` for running handlers. Handlers still running then are
   * aborted and their leases left to expire, so another process runs them again (no overlap).
   */
  async stop(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.polling?.catch(() => undefined);
    const pending = [...this.running.values()];
    if (pending.length === 0) return;
    let timeout: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((resolve) => (timeout = setTimeout(() => resolve('timeout'), timeoutMs)));
    const result = await Promise.race([Promise.allSettled(pending.map((r) => r.done)), expired]);
    clearTimeout(timeout);
    if (result !== 'timeout') return;
    for (const r of this.running.values()) {
      clearInterval(r.renewal);
      r.controller.abort(new Error('job runner stopped'));
      this.log.warn(
        { jobId: r.token.id },
        'job still running at shutdown: its lease will expire and another process will run it',
      );
    }
  }

  /**
   * Plans the next poll. `0` means now (a slot just freed): it replaces a later poll already planned,
   * or, while a poll runs, makes the next one follow at once; otherwise a slot would wait for the
   * regular interval, and a queue of short jobs would move one job per slot per second.
   */
  private schedulePoll(delayMs: number): void {
    if (!this.started || this.stopping) return;
    if (this.polling) {
      if (delayMs === 0) this.pollAgain = true;
      return;
    }
    if (this.timer) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pollAgain = false;
      this.polling = this.leaseAndDispatch()
        .catch((err) => this.log.warn({ err }, 'could not lease jobs'))
        .finally(() => {
          this.polling = null;
          const again = this.pollAgain;
          this.pollAgain = false;
          // A little jitter so processes started together do not poll in step.
          this.schedulePoll(again ? 0 : this.pollIntervalMs * (0.8 + 0.4 * this.random()));
        });
    }, delayMs);
    this.timer.unref();
  }

  private iso(ms: number): string {
    return new Date(ms).toISOString();
  }

  private async leaseAndDispatch(): Promise<Running[]> {
    const free = this.concurrency - this.running.size;
    if (this.stopping || free <= 0) return [];
    const kinds = [...this.handlers.keys()];
    const now = this.now();
    if (!(await hasLeasableJobs(this.db, kinds, this.iso(now)))) return [];
    await this.buryExhausted(kinds, this.iso(now));
    const rows = await leaseJobs(this.db, {
      owner: this.owner,
      kinds,
      now: this.iso(now),
      leaseUntil: this.iso(now + this.leaseMs),
      limit: free,
    });
    return rows.map((row) => this.dispatch(row));
  }

  /** Jobs whose lease expired on their last attempt become dead, and their kinds' hooks run. */
  private async buryExhausted(kinds: string[], now: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      for (const job of await buryExhausted(trx, kinds, now)) {
        const onDead = this.handlers.get(job.kind)?.onDead;
        if (onDead)
          await onDead(trx, {
            id: job.id,
            kind: job.kind,
            payload: JSON.parse(job.payload),
            error: job.last_error ?? '',
          });
      }
    });
  }

  private dispatch(row: JobsTable): Running {
    const token: LeaseToken = { id: row.id, owner: this.owner, attempt: Number(row.attempts) };
    const key = `${token.id}#${token.attempt}`;
    const controller = new AbortController();
    // One renewal at a time: when the database is slow, renewals started every interval would queue,
    // and a late one, computed from an older clock reading, would shorten the lease a newer one had
    // set, until another runner could take the job while this one still runs it.
    let renewing = false;
    const renewal = setInterval(() => {
      if (renewing) return;
      renewing = true;
      void this.renew(token, controller).finally(() => (renewing = false));
    }, this.renewEveryMs);
    renewal.unref();
    const entry: Running = { token, controller, renewal, done: Promise.resolve() };
    entry.done = this.execute(row, token, controller).finally(() => {
      clearInterval(renewal);
      this.running.delete(key);
      // A slot is free: look for more work now rather than at the next poll.
      this.schedulePoll(0);
    });
    this.running.set(key, entry);
    return entry;
  }

  private async renew(token: LeaseToken, controller: AbortController): Promise<void> {
    if (controller.signal.aborted) return;
    try {
      const now = this.now();
      const held = await renewLease(this.db, token, this.iso(now + this.leaseMs), this.iso(now));
      if (!held) controller.abort(new Error('job lease lost'));
    } catch (err) {
      // A passing database error: the lease still runs until it expires; the next renewal may work.
      this.log.warn({ err, jobId: token.id }, 'could not renew job lease');
    }
  }

  private async execute(row: JobsTable, token: LeaseToken, controller: AbortController): Promise<void> {
    const registration = this.handlers.get(row.kind)!;
    let outcome: JobOutcome;
    try {
      await registration.handler({
        id: row.id,
        kind: row.kind,
        payload: JSON.parse(row.payload),
        attempt: token.attempt,
        maxAttempts: Number(row.max_attempts),
        signal: controller.signal,
      });
      outcome = { state: 'succeeded', now: this.iso(this.now()) };
    } catch (err) {
      const now = this.now();
      const error = messageOf(err);
      if (err instanceof PermanentJobError || token.attempt >= Number(row.max_attempts)) {
        outcome = { state: 'dead', now: this.iso(now), error };
        this.log.error({ err, jobId: row.id, kind: row.kind, attempt: token.attempt }, 'job failed for good');
      } else {
        const delay = retryDelayMs(token.attempt, this.backoff, this.random);
        outcome = { state: 'failed', now: this.iso(now), runAt: this.iso(now + delay), error };
        this.log.warn(
          { err, jobId: row.id, kind: row.kind, attempt: token.attempt, retryInMs: delay },
          'job failed; it will be retried',
        );
      }
    }
    if (controller.signal.aborted && outcome.state !== 'succeeded') {
      // Lost the lease or stopped mid-run: whoever holds the job now records its outcome.
      return;
    }
    try {
      const recorded = await inTransaction(this.db, async (trx) => {
        const held = await finishJob(trx, token, outcome);
        if (held && outcome.state === 'dead' && registration.onDead) {
          await registration.onDead(trx, {
            id: row.id,
            kind: row.kind,
            payload: JSON.parse(row.payload),
            error: outcome.error,
          });
        }
        if (held && registration.everyMs !== undefined && outcome.state !== 'failed') {
          await enqueue(
            trx,
            {
              kind: row.kind,
              payload: registration.payload ?? null,
              dedupeKey: recurringKeyOf(row.kind),
              runAt: this.now() + registration.everyMs,
            },
            this.now,
          );
        }
        return held;
      });
      if (!recorded)
        this.log.warn(
          { jobId: row.id, kind: row.kind },
          'job lease was lost before its outcome was recorded; another runner has it',
        );
    } catch (err) {
      this.log.error(
        { err, jobId: row.id },
        'could not record job outcome; the job will run again when its lease expires',
      );
    }
  }
}

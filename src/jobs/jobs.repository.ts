// Queries of the jobs table. Leasing is the one place the engines differ: PostgreSQL locks due rows
// with FOR UPDATE SKIP LOCKED (runners never wait on each other's rows), SQLite has a single writer
// and leases with one UPDATE … RETURNING statement, which holds the write lock from its first read.
import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { dialectOf } from '../db/dialect.js';
import type { Executor } from '../db/transaction.js';
import type { JobState, JobsTable, JobsTables } from './jobs.table.js';
import { ownTables } from '../db/owned-tables.js';

const own = ownTables<JobsTables>();

const QUEUED: JobState = 'queued';

/** Inserts a job; with a dedupe key that a queued job already holds, answers that job's id instead. */
export async function insertJob(db: Executor, row: JobsTable): Promise<{ id: string; deduplicated: boolean }> {
  if (row.dedupe_key === null) {
    await own(db).insertInto('jobs').values(row).execute();
    return { id: row.id, deduplicated: false };
  }
  // ON CONFLICT rather than catching the violation: on PostgreSQL a violation would abort the
  // caller's transaction. The predicate names the partial unique index (migration 0050).
  const inserted = await own(db)
    .insertInto('jobs')
    .values(row)
    .onConflict((oc) => oc.column('dedupe_key').where(sql.ref('state'), '=', sql.lit(QUEUED)).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, deduplicated: false };
  const existing = await own(db)
    .selectFrom('jobs')
    .select('id')
    .where('dedupe_key', '=', row.dedupe_key)
    .where('state', '=', QUEUED)
    .executeTakeFirst();
  // The queued holder was leased between our insert and this read: the key is free again.
  if (!existing) return insertJob(db, row);
  return { id: existing.id, deduplicated: true };
}

/** The queued job holding `dedupeKey` becomes due at `runAt` if it was due later. */
export async function advanceQueued(db: Executor, dedupeKey: string, runAt: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_at: runAt, updated_at: runAt })
    .where('dedupe_key', '=', dedupeKey)
    .where('state', '=', QUEUED)
    .where('run_at', '>', runAt)
    .execute();
}

export interface LeaseRequest {
  owner: string;
  kinds: string[];
  now: string;
  leaseUntil: string;
  limit: number;
}

/** Jobs of `kinds` that may be leased at `now`: waiting and due, or running with an expired lease. */
function dueJobs(db: Executor, request: LeaseRequest) {
  return own(db)
    .selectFrom('jobs')
    .select('id')
    .where('kind', 'in', request.kinds)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', 'in', ['queued', 'failed']), eb('run_at', '<=', request.now)]),
        eb.and([eb('state', '=', 'running'), eb('lease_expires_at', '<=', request.now)]),
      ]),
    )
    .orderBy('run_at')
    .orderBy('id')
    .limit(request.limit);
}

/**
 * Whether anything is leasable: a read, so an idle runner polling every second takes no write lock
 * (SQLite has one) and opens no locking transaction (PostgreSQL).
 */
export async function hasLeasableJobs(db: Executor, kinds: string[], now: string): Promise<boolean> {
  if (kinds.length === 0) return false;
  const row = await dueJobs(db, { owner: '', kinds, now, leaseUntil: now, limit: 1 }).executeTakeFirst();
  return row !== undefined;
}

function leaseChanges(request: LeaseRequest) {
  return {
    state: 'running' as const,
    attempts: sql<number>`attempts + 1`,
    lease_owner: request.owner,
    lease_expires_at: request.leaseUntil,
    updated_at: request.now,
  };
}

/** Leases up to `limit` due jobs to `owner`, raising their attempt count. */
export async function leaseJobs(db: Kysely<Database>, request: LeaseRequest): Promise<JobsTable[]> {
  if (request.kinds.length === 0 || request.limit <= 0) return [];
  if (dialectOf(db) === 'postgres') {
    return db.transaction().execute(async (trx: Transaction<Database>) => {
      const ids = (await dueJobs(trx, request).forUpdate().skipLocked().execute()).map((r) => r.id);
      if (ids.length === 0) return [];
      return own(trx).updateTable('jobs').set(leaseChanges(request)).where('id', 'in', ids).returningAll().execute();
    });
  }
  return own(db)
    .updateTable('jobs')
    .set(leaseChanges(request))
    .where('id', 'in', dueJobs(db, request))
    .returningAll()
    .execute();
}

/**
 * Jobs whose lease expired on their last allowed attempt are dead, not leased again: a job that
 * kills its process every time would otherwise be retried forever.
 */
export async function buryExhausted(
  db: Executor,
  kinds: string[],
  now: string,
): Promise<Array<Pick<JobsTable, 'id' | 'kind' | 'payload' | 'last_error'>>> {
  if (kinds.length === 0) return [];
  return own(db)
    .updateTable('jobs')
    .set({
      state: 'dead',
      lease_owner: null,
      lease_expires_at: null,
      last_error: 'lease expired on the last attempt (the process running it stopped or stalled)',
      updated_at: now,
      finished_at: now,
    })
    .where('kind', 'in', kinds)
    .where('state', '=', 'running')
    .where('lease_expires_at', '<=', now)
    .where((eb) => eb('attempts', '>=', eb.ref('max_attempts')))
    .returning(['id', 'kind', 'payload', 'last_error'])
    .execute();
}

/** The lease a runner holds: the owner and the attempt it leased (a re-lease raises the attempt). */
export interface LeaseToken {
  id: string;
  owner: string;
  attempt: number;
}

function heldBy(token: LeaseToken) {
  return (eb: ExpressionBuilder<Database, 'jobs'>) =>
    eb.and([
      eb('id', '=', token.id),
      eb('state', '=', 'running'),
      eb('lease_owner', '=', token.owner),
      eb('attempts', '=', token.attempt),
    ]);
}

/**
 * Extends a held lease that has not expired yet; false when it has, even if nobody took the job
 * yet: an expired lease is abandoned work that another runner may be leasing at this moment.
 */
export async function renewLease(db: Executor, token: LeaseToken, until: string, now: string): Promise<boolean> {
  const result = await own(db)
    .updateTable('jobs')
    .set({ lease_expires_at: until, updated_at: now })
    .where(heldBy(token))
    .where('lease_expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export type JobOutcome =
  | { state: 'succeeded'; now: string }
  | { state: 'failed'; now: string; runAt: string; error: string }
  | { state: 'dead'; now: string; error: string };

/** Records the outcome of a held lease; false when the lease was lost, and then nothing changes. */
export async function finishJob(db: Executor, token: LeaseToken, outcome: JobOutcome): Promise<boolean> {
  const common = { state: outcome.state, lease_owner: null, lease_expires_at: null, updated_at: outcome.now };
  const changes =
    outcome.state === 'failed'
      ? { ...common, run_at: outcome.runAt, last_error: outcome.error }
      : outcome.state === 'dead'
        ? { ...common, last_error: outcome.error, finished_at: outcome.now }
        : { ...common, finished_at: outcome.now };
  const result = await own(db).updateTable('jobs').set(changes).where(heldBy(token)).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A job as other modules see it (their own records keep the job id, e.g. an aggregation run). */
export interface Job {
  id: string;
  kind: string;
  payload: unknown;
  state: JobState;
  runAt: string;
  attempts: number;
  maxAttempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  lastError: string | null;
  dedupeKey: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export async function findJob(db: Executor, id: string): Promise<Job | null> {
  const r = await own(db).selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  if (!r) return null;
  return {
    id: r.id,
    kind: r.kind,
    payload: JSON.parse(r.payload),
    state: r.state,
    runAt: r.run_at,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    lastError: r.last_error,
    dedupeKey: r.dedupe_key,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}

/** Whether a job of this dedupe key is waiting or running (recurring schedules start only once). */
export async function hasPendingJob(db: Executor, dedupeKey: string): Promise<boolean> {
  const row = await own(db)
    .selectFrom('jobs')
    .select('id')
    .where('dedupe_key', '=', dedupeKey)
    .where('state', 'in', ['queued', 'running', 'failed'])
    .executeTakeFirst();
  return !!row;
}

/** Deletes succeeded and dead jobs finished before `before`. */
export async function purgeFinishedJobs(db: Executor, before: string): Promise<number> {
  const result = await own(db)
    .deleteFrom('jobs')
    .where('state', 'in', ['succeeded', 'dead'])
    .where('finished_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

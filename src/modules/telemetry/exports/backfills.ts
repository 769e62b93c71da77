// Backfills (issue 13): a request stores a record and queues a leased job in one transaction; the job
// reads the environment's retained events page by page in arrival order and cuts deliveries of those
// stamped inside the window. Each page commits its deliveries with the record's cursor and counts,
// so a process killed mid-backfill leaves it to resume where the last page ended, cutting nothing twice.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import { enqueue, type JobRunner } from '../../../jobs/index.js';
import { newId } from '../../../platform/ids.js';
import type { ExportBackfillsTable, ExportBackfillsTables } from './backfills.table.js';
import type { ExportsTables } from './exports.table.js';
import { FUTURE_TOLERANCE_MS, type FeedPosition } from '../ingestion/index.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<ExportsTables & ExportBackfillsTables>();

export const BACKFILL_JOB = 'exports.backfill';
export const BACKFILL_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type BackfillStatus = (typeof BACKFILL_STATUSES)[number];

export interface BackfillPage {
  deliveries: number;
  events: number;
  position: FeedPosition;
  done: boolean;
}

/** Where a backfill starts reading: an event is received at most 5 minutes before its timestamp,
 * so nothing received earlier can be stamped inside the window. */
export const backfillStart = (from: number): FeedPosition => ({ receivedAt: from - FUTURE_TOLERANCE_MS, eventId: '' });

export interface BackfillView {
  id: string;
  destinationId: string;
  from: string;
  to: string;
  status: BackfillStatus;
  /** Deliveries cut so far. */
  deliveries: number;
  /** Events of the window put into deliveries so far. */
  events: number;
  createdAt: string;
  completedAt: string | null;
  lastError: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function backfillView(row: ExportBackfillsTable): BackfillView {
  return {
    id: row.id,
    destinationId: row.destination_id,
    from: iso(Number(row.from_ts)),
    to: iso(Number(row.to_ts)),
    status: row.status as BackfillStatus,
    deliveries: Number(row.deliveries),
    events: Number(row.events),
    createdAt: row.created_at,
    completedAt: row.completed_at,
    lastError: row.last_error,
  };
}

/** Records a backfill and queues its job (in the caller's transaction). */
export async function requestBackfill(
  trx: Executor,
  input: { destinationId: string; envId: string; from: number; to: number },
  now: () => number,
): Promise<BackfillView> {
  const start = backfillStart(input.from);
  const row: ExportBackfillsTable = {
    id: newId('bkf'),
    destination_id: input.destinationId,
    env_id: input.envId,
    from_ts: input.from,
    to_ts: input.to,
    status: 'queued',
    deliveries: 0,
    events: 0,
    cursor_received_at: start.receivedAt,
    cursor_event_id: start.eventId,
    created_at: iso(now()),
    completed_at: null,
    last_error: null,
  };
  await own(trx).insertInto('export_backfills').values(row).execute();
  await enqueue(trx, { kind: BACKFILL_JOB, payload: { backfillId: row.id }, maxAttempts: 10 }, now);
  return backfillView(row);
}

export async function findBackfill(db: Executor, destinationId: string, id: string): Promise<BackfillView | undefined> {
  const row = await own(db)
    .selectFrom('export_backfills')
    .selectAll()
    .where('destination_id', '=', destinationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? backfillView(row) : undefined;
}

export async function listBackfills(db: Executor, destinationId: string, limit = 50): Promise<BackfillView[]> {
  const rows = await own(db)
    .selectFrom('export_backfills')
    .selectAll()
    .where('destination_id', '=', destinationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(backfillView);
}

export interface BackfillRunnerDeps {
  db: Kysely<Database>;
  /** One page of a backfill (the delivery worker's backfillPage). */
  worker: {
    backfillPage(
      trx: Executor,
      destination: Database['export_destinations'],
      window: { from: number; to: number; receivedBefore: number },
      after: FeedPosition,
    ): Promise<BackfillPage>;
  };
  now: () => number;
}

/** Runs one backfill to its end (or until `signal` aborts: the job runs again from the stored cursor). */
export async function runBackfill(deps: BackfillRunnerDeps, backfillId: string, signal?: AbortSignal): Promise<void> {
  const { db } = deps;
  for (;;) {
    if (signal?.aborted) throw new Error('backfill interrupted; it resumes from its cursor');
    const finished = await inTransaction(db, async (trx) => {
      const row = await own(trx)
        .selectFrom('export_backfills')
        .selectAll()
        .where('id', '=', backfillId)
        .executeTakeFirst();
      if (!row || row.status === 'completed' || row.status === 'failed') return true;
      const destination = await own(trx)
        .selectFrom('export_destinations')
        .selectAll()
        .where('id', '=', row.destination_id)
        .executeTakeFirst();
      if (!destination) {
        await own(trx)
          .updateTable('export_backfills')
          .set({ status: 'failed', last_error: 'The destination no longer exists.', completed_at: iso(deps.now()) })
          .where('id', '=', backfillId)
          .execute();
        return true;
      }
      // Events received after the request are the scheduler's: the backfill re-sends what was there.
      const window = { from: Number(row.from_ts), to: Number(row.to_ts), receivedBefore: Date.parse(row.created_at) };
      const page = await deps.worker.backfillPage(trx, destination, window, {
        receivedAt: Number(row.cursor_received_at),
        eventId: row.cursor_event_id,
      });
      await own(trx)
        .updateTable('export_backfills')
        .set({
          status: page.done ? 'completed' : 'running',
          deliveries: Number(row.deliveries) + page.deliveries,
          events: Number(row.events) + page.events,
          cursor_received_at: page.position.receivedAt,
          cursor_event_id: page.position.eventId,
          completed_at: page.done ? iso(deps.now()) : null,
        })
        .where('id', '=', backfillId)
        .execute();
      return page.done;
    });
    if (finished) return;
  }
}

export function registerBackfillJobs(jobs: JobRunner, deps: BackfillRunnerDeps): void {
  jobs.register<{ backfillId: string }>(BACKFILL_JOB, async (job) => {
    try {
      await runBackfill(deps, job.payload.backfillId, job.signal);
    } catch (err) {
      if (job.attempt >= job.maxAttempts && !job.signal.aborted) {
        await own(deps.db)
          .updateTable('export_backfills')
          .set({
            status: 'failed',
            last_error: err instanceof Error ? err.message : String(err),
            completed_at: iso(deps.now()),
          })
          .where('id', '=', job.payload.backfillId)
          .where('status', 'in', ['queued', 'running'])
          .execute();
      }
      throw err;
    }
  });
}

// Kysely queries of export deliveries: batches of raw event ids bound for one destination.
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { ownTables } from '../../../db/owned-tables.js';
import { forUpdateSkipLocked } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';
import type { ExportDeliveriesTable, ExportsTables } from './exports.table.js';

const own = ownTables<ExportsTables>();

export type DeliveryRow = Selectable<ExportDeliveriesTable>;

export const DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'expired'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryError {
  status: number | null;
  code: string;
  message: string;
}

export interface DeliveryView {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  eventCount: number;
  firstEventAt: string;
  lastEventAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastError: DeliveryError | null;
}

export function toDeliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    eventCount: Number(row.event_count),
    firstEventAt: row.first_event_at,
    lastEventAt: row.last_event_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error === null ? null : JSON.parse(row.last_error),
  };
}

export async function insertDelivery(
  db: Executor,
  row: {
    id: string;
    destinationId: string;
    envId: string;
    eventIds: string[];
    firstEventAt: string;
    lastEventAt: string;
    at: string;
  },
): Promise<void> {
  await own(db)
    .insertInto('export_deliveries')
    .values({
      id: row.id,
      destination_id: row.destinationId,
      env_id: row.envId,
      status: 'pending',
      attempts: 0,
      event_ids: JSON.stringify(row.eventIds),
      event_count: row.eventIds.length,
      first_event_at: row.firstEventAt,
      last_event_at: row.lastEventAt,
      last_attempt_at: null,
      next_attempt_at: row.at,
      last_error: null,
      claim_owner: null,
      claimed_until: null,
      created_at: row.at,
      updated_at: row.at,
    })
    .execute();
}

export async function findDelivery(db: Executor, destinationId: string, id: string): Promise<DeliveryRow | undefined> {
  return own(db)
    .selectFrom('export_deliveries')
    .selectAll()
    .where('destination_id', '=', destinationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findDeliveryById(db: Executor, id: string): Promise<DeliveryRow | undefined> {
  return own(db).selectFrom('export_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first, keyset on id. `from`/`to` select deliveries whose events overlap the window. */
export async function listDeliveries(
  db: Executor,
  destinationId: string,
  options: { status?: DeliveryStatus; from?: string; to?: string; before?: string; limit: number },
): Promise<DeliveryRow[]> {
  let q = own(db).selectFrom('export_deliveries').selectAll().where('destination_id', '=', destinationId);
  if (options.status) q = q.where('status', '=', options.status);
  if (options.from) q = q.where('last_event_at', '>=', options.from);
  if (options.to) q = q.where('first_event_at', '<', options.to);
  if (options.before) q = q.where('id', '<', options.before);
  return q.orderBy('id', 'desc').limit(options.limit).execute();
}

/**
 * What is due by `at`, in two parts each read along the (destination_id, status, next_attempt_at, id)
 * index: pending deliveries whose next attempt has come, and delivering ones whose claim lapsed (their
 * owner died or stalled). One OR across both made SQLite read and sort the destination's whole
 * history on every claim.
 */
const DUE_PARTS = [
  (eb: ExpressionBuilder<ExportsTables, 'export_deliveries'>, at: string) =>
    eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', at)]),
  (eb: ExpressionBuilder<ExportsTables, 'export_deliveries'>, at: string) =>
    eb.and([eb('status', '=', 'delivering'), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)])]),
] as const;

/** Active destinations with a delivery due by `at`: the scheduler hands each to a worker. */
export async function destinationsWithDue(db: Executor, at: string, limit: number): Promise<string[]> {
  const rows = await own(db)
    .selectFrom('export_destinations as d')
    .select('d.id')
    .where('d.status', '=', 'active')
    .where((eb) =>
      eb.or(
        DUE_PARTS.map((part) =>
          eb.exists(
            eb
              .selectFrom('export_deliveries')
              .select('export_deliveries.id')
              .whereRef('export_deliveries.destination_id', '=', 'd.id')
              .where((inner) => part(inner as never, at)),
          ),
        ),
      ),
    )
    .orderBy('d.id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Claims the destination's oldest due delivery for one attempt, atomically (one UPDATE per part):
 * it becomes delivering, owned by `owner` until `until`. Several workers claiming at once each get a
 * different one (on PostgreSQL locked candidates are skipped; SQLite has one writer). Nothing when
 * none is due.
 */
export async function claimNextDue(
  db: Executor,
  destinationId: string,
  claim: { owner: string; at: string; until: string },
): Promise<DeliveryRow | undefined> {
  for (const part of DUE_PARTS) {
    const candidate = own(db)
      .selectFrom('export_deliveries')
      .select('id')
      .where('destination_id', '=', destinationId)
      .where((eb) => part(eb, claim.at))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(1);
    const claimed = await own(db)
      .updateTable('export_deliveries')
      .set({ status: 'delivering', claim_owner: claim.owner, claimed_until: claim.until, updated_at: claim.at })
      .where('id', '=', forUpdateSkipLocked(db, candidate))
      .where((eb) => part(eb as never, claim.at))
      .returningAll()
      .executeTakeFirst();
    if (claimed) return claimed;
  }
  return undefined;
}

export async function backlogOf(
  db: Executor,
  destinationId: string,
): Promise<{ backlog: number; oldestPendingAt: string | null }> {
  const row = await own(db)
    .selectFrom('export_deliveries')
    .select((eb) => [eb.fn.countAll<string | number>().as('n'), eb.fn.min('first_event_at').as('oldest')])
    .where('destination_id', '=', destinationId)
    .where('status', 'in', ['pending', 'delivering'])
    .executeTakeFirst();
  return { backlog: Number(row?.n ?? 0), oldestPendingAt: (row?.oldest as string | null | undefined) ?? null };
}

/**
 * A deliver job went dead (every attempt failed, or its process died on the last one): the
 * deliveries its attempts (`owners`) still hold become failed, and so retryable, instead of waiting
 * on a claim whose owner is gone. Answers how many.
 */
export async function failAbandoned(
  db: Executor,
  destinationId: string,
  owners: string[],
  error: DeliveryError,
  at: string,
): Promise<number> {
  const result = await own(db)
    .updateTable('export_deliveries')
    .set({
      status: 'failed',
      next_attempt_at: null,
      claim_owner: null,
      claimed_until: null,
      last_error: JSON.stringify(error),
      updated_at: at,
    })
    .where('destination_id', '=', destinationId)
    .where('status', '=', 'delivering')
    .where('claim_owner', 'in', owners)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Records the outcome of a claimed attempt; false (and nothing changes) when the claim was lost. */
export async function recordAttempt(
  db: Executor,
  id: string,
  owner: string,
  set: {
    status: DeliveryStatus;
    attempts: number;
    lastAttemptAt: string;
    nextAttemptAt: string | null;
    lastError: DeliveryError | null;
  },
): Promise<boolean> {
  const result = await own(db)
    .updateTable('export_deliveries')
    .set({
      status: set.status,
      attempts: set.attempts,
      last_attempt_at: set.lastAttemptAt,
      next_attempt_at: set.nextAttemptAt,
      last_error: set.lastError === null ? null : JSON.stringify(set.lastError),
      claim_owner: null,
      claimed_until: null,
      updated_at: set.lastAttemptAt,
    })
    .where('id', '=', id)
    .where('status', '=', 'delivering')
    .where('claim_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setStatus(
  db: Executor,
  id: string,
  status: DeliveryStatus,
  at: string,
  extra: { attempts?: number; nextAttemptAt?: string | null } = {},
): Promise<void> {
  await own(db)
    .updateTable('export_deliveries')
    .set({
      status,
      updated_at: at,
      claim_owner: null,
      claimed_until: null,
      ...(extra.attempts !== undefined ? { attempts: extra.attempts } : {}),
      ...(extra.nextAttemptAt !== undefined ? { next_attempt_at: extra.nextAttemptAt } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** Deliveries whose every event left retention become expired (their events can no longer be sent). */
export async function expireDeliveries(db: Executor, before: string, at: string): Promise<number> {
  const result = await own(db)
    .updateTable('export_deliveries')
    .set({ status: 'expired', next_attempt_at: null, updated_at: at })
    // Literal, as the partial index export_deliveries_expiry_idx states it (migration 0155): SQLite
    // matches a partial index's predicate only against the same terms, never bound parameters.
    .where(sql<boolean>`status in ('pending', 'failed', 'delivered')`)
    .where('last_event_at', '<', before)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

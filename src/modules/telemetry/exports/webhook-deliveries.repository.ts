// Kysely queries of export deliveries: batches of raw event ids bound for one destination.
import type { Selectable } from 'kysely';
import type { Executor } from '../../../db/transaction.js';
import type { ExportDeliveriesTable } from './exports.table.js';

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

export async function insertDelivery(db: Executor, row: { id: string; destinationId: string; envId: string; eventIds: string[]; firstEventAt: string; lastEventAt: string; at: string }): Promise<void> {
  await db.insertInto('export_deliveries').values({
    id: row.id, destination_id: row.destinationId, env_id: row.envId, status: 'pending', attempts: 0, event_ids: JSON.stringify(row.eventIds),
    event_count: row.eventIds.length, first_event_at: row.firstEventAt, last_event_at: row.lastEventAt, last_attempt_at: null, next_attempt_at: row.at,
    last_error: null, claim_owner: null, claimed_until: null, created_at: row.at, updated_at: row.at,
  }).execute();
}

export async function findDelivery(db: Executor, destinationId: string, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('export_deliveries').selectAll().where('destination_id', '=', destinationId).where('id', '=', id).executeTakeFirst();
}

export async function findDeliveryById(db: Executor, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('export_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first, keyset on id. `from`/`to` select deliveries whose events overlap the window. */
export async function listDeliveries(db: Executor, destinationId: string, options: { status?: DeliveryStatus; from?: string; to?: string; before?: string; limit: number }): Promise<DeliveryRow[]> {
  let q = db.selectFrom('export_deliveries').selectAll().where('destination_id', '=', destinationId);
  if (options.status) q = q.where('status', '=', options.status);
  if (options.from) q = q.where('last_event_at', '>=', options.from);
  if (options.to) q = q.where('first_event_at', '<', options.to);
  if (options.before) q = q.where('id', '<', options.before);
  return q.orderBy('id', 'desc').limit(options.limit).execute();
}

/**
 * Deliveries due by `at` of active destinations, what the scheduler hands to workers: pending ones
 * whose next attempt has come, and delivering ones whose claim lapsed (their owner died or stalled).
 */
export async function dueDeliveries(db: Executor, at: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('export_deliveries').innerJoin('export_destinations', 'export_destinations.id', 'export_deliveries.destination_id')
    .select('export_deliveries.id')
    .where((eb) => eb.or([
      eb.and([eb('export_deliveries.status', '=', 'pending'), eb('export_deliveries.next_attempt_at', '<=', at)]),
      eb.and([eb('export_deliveries.status', '=', 'delivering'), eb.or([eb('export_deliveries.claimed_until', 'is', null), eb('export_deliveries.claimed_until', '<=', at)])]),
    ]))
    .where('export_destinations.status', '=', 'active').orderBy('export_deliveries.next_attempt_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** The destination's next pending delivery due by `at`, oldest first. */
export async function nextDueOf(db: Executor, destinationId: string, at: string): Promise<string | undefined> {
  const row = await db.selectFrom('export_deliveries').select('id').where('destination_id', '=', destinationId).where('status', '=', 'pending')
    .where('next_attempt_at', '<=', at).orderBy('next_attempt_at').orderBy('id').limit(1).executeTakeFirst();
  return row?.id;
}

export async function backlogOf(db: Executor, destinationId: string): Promise<{ backlog: number; oldestPendingAt: string | null }> {
  const row = await db.selectFrom('export_deliveries').select((eb) => [eb.fn.countAll<string | number>().as('n'), eb.fn.min('first_event_at').as('oldest')])
    .where('destination_id', '=', destinationId).where('status', 'in', ['pending', 'delivering']).executeTakeFirst();
  return { backlog: Number(row?.n ?? 0), oldestPendingAt: (row?.oldest as string | null | undefined) ?? null };
}

/**
 * Claims a delivery for one attempt, atomically (one UPDATE): a pending delivery whose next attempt
 * has come, or a delivering one whose claim lapsed, becomes delivering, owned by `owner` until
 * `until`. False when another owner holds it or it is not due: the caller leaves it alone.
 */
export async function claimDelivery(db: Executor, id: string, claim: { owner: string; at: string; until: string }): Promise<boolean> {
  const result = await db.updateTable('export_deliveries').set({ status: 'delivering', claim_owner: claim.owner, claimed_until: claim.until, updated_at: claim.at })
    .where('id', '=', id)
    .where((eb) => eb.or([
      eb.and([eb('status', '=', 'pending'), eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', claim.at)])]),
      eb.and([eb('status', '=', 'delivering'), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', claim.at)])]),
    ]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Hands a claimed delivery back unsent (its destination was paused or disabled meanwhile). */
export async function releaseClaim(db: Executor, id: string, owner: string, at: string): Promise<void> {
  await db.updateTable('export_deliveries').set({ status: 'pending', claim_owner: null, claimed_until: null, updated_at: at })
    .where('id', '=', id).where('status', '=', 'delivering').where('claim_owner', '=', owner).execute();
}

/**
 * The deliver job of this delivery went dead (every attempt failed, or its process died on the last
 * one): the delivery becomes failed, and so retryable, unless another owner holds a live claim on it.
 */
export async function failAbandoned(db: Executor, id: string, owners: string[], error: DeliveryError, at: string): Promise<boolean> {
  const result = await db.updateTable('export_deliveries')
    .set({ status: 'failed', next_attempt_at: null, claim_owner: null, claimed_until: null, last_error: JSON.stringify(error), updated_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([
      eb('status', '=', 'pending'),
      eb.and([eb('status', '=', 'delivering'), eb.or([eb('claim_owner', 'is', null), eb('claim_owner', 'in', owners), eb('claimed_until', '<=', at)])]),
    ]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records the outcome of a claimed attempt; false (and nothing changes) when the claim was lost. */
export async function recordAttempt(db: Executor, id: string, owner: string, set: { status: DeliveryStatus; attempts: number; lastAttemptAt: string; nextAttemptAt: string | null; lastError: DeliveryError | null }): Promise<boolean> {
  const result = await db.updateTable('export_deliveries').set({
    status: set.status, attempts: set.attempts, last_attempt_at: set.lastAttemptAt, next_attempt_at: set.nextAttemptAt,
    last_error: set.lastError === null ? null : JSON.stringify(set.lastError), claim_owner: null, claimed_until: null, updated_at: set.lastAttemptAt,
  }).where('id', '=', id).where('status', '=', 'delivering').where('claim_owner', '=', owner).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setStatus(db: Executor, id: string, status: DeliveryStatus, at: string, extra: { attempts?: number; nextAttemptAt?: string | null } = {}): Promise<void> {
  await db.updateTable('export_deliveries').set({
    status, updated_at: at, claim_owner: null, claimed_until: null, ...(extra.attempts !== undefined ? { attempts: extra.attempts } : {}), ...(extra.nextAttemptAt !== undefined ? { next_attempt_at: extra.nextAttemptAt } : {}),
  }).where('id', '=', id).execute();
}

/** Deliveries whose every event left retention become expired (their events can no longer be sent). */
export async function expireDeliveries(db: Executor, before: string, at: string): Promise<number> {
  const result = await db.updateTable('export_deliveries').set({ status: 'expired', next_attempt_at: null, updated_at: at })
    .where('status', 'in', ['pending', 'failed', 'delivered']).where('last_event_at', '<', before).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

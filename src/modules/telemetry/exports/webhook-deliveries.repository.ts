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
    last_error: null, created_at: row.at, updated_at: row.at,
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

/** Pending deliveries due by `at` of active destinations: what the scheduler hands to workers. */
export async function dueDeliveries(db: Executor, at: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('export_deliveries').innerJoin('export_destinations', 'export_destinations.id', 'export_deliveries.destination_id')
    .select('export_deliveries.id').where('export_deliveries.status', '=', 'pending').where('export_deliveries.next_attempt_at', '<=', at)
    .where('export_destinations.status', '=', 'active').orderBy('export_deliveries.next_attempt_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

export async function backlogOf(db: Executor, destinationId: string): Promise<{ backlog: number; oldestPendingAt: string | null }> {
  const row = await db.selectFrom('export_deliveries').select((eb) => [eb.fn.countAll<string | number>().as('n'), eb.fn.min('first_event_at').as('oldest')])
    .where('destination_id', '=', destinationId).where('status', 'in', ['pending', 'delivering']).executeTakeFirst();
  return { backlog: Number(row?.n ?? 0), oldestPendingAt: (row?.oldest as string | null | undefined) ?? null };
}

/** Claims a delivery for an attempt: pending (or delivering left by a dead worker) becomes delivering. */
export async function claimDelivery(db: Executor, id: string, at: string): Promise<boolean> {
  const result = await db.updateTable('export_deliveries').set({ status: 'delivering', updated_at: at }).where('id', '=', id).where('status', 'in', ['pending', 'delivering']).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function recordAttempt(db: Executor, id: string, set: { status: DeliveryStatus; attempts: number; lastAttemptAt: string; nextAttemptAt: string | null; lastError: DeliveryError | null }): Promise<void> {
  await db.updateTable('export_deliveries').set({
    status: set.status, attempts: set.attempts, last_attempt_at: set.lastAttemptAt, next_attempt_at: set.nextAttemptAt,
    last_error: set.lastError === null ? null : JSON.stringify(set.lastError), updated_at: set.lastAttemptAt,
  }).where('id', '=', id).execute();
}

export async function setStatus(db: Executor, id: string, status: DeliveryStatus, at: string, extra: { attempts?: number; nextAttemptAt?: string | null } = {}): Promise<void> {
  await db.updateTable('export_deliveries').set({
    status, updated_at: at, ...(extra.attempts !== undefined ? { attempts: extra.attempts } : {}), ...(extra.nextAttemptAt !== undefined ? { next_attempt_at: extra.nextAttemptAt } : {}),
  }).where('id', '=', id).execute();
}

/** Deliveries whose every event left retention become expired (their events can no longer be sent). */
export async function expireDeliveries(db: Executor, before: string, at: string): Promise<number> {
  const result = await db.updateTable('export_deliveries').set({ status: 'expired', next_attempt_at: null, updated_at: at })
    .where('status', 'in', ['pending', 'failed', 'delivered']).where('last_event_at', '<', before).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

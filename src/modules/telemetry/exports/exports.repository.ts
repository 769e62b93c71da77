// Kysely queries of export destinations; rows become Destination here and never leave.
import type { Selectable } from 'kysely';
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import type { Executor } from '../../../db/transaction.js';
import type { Destination, DestinationFields, DestinationHealth, DestinationStatus } from './exports.model.js';
import type { ExportDestinationsTable, ExportsTables } from './exports.table.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<ExportsTables>();

export type DestinationRow = Selectable<ExportDestinationsTable>;

export interface DestinationScope {
  appId: string;
  envId: string;
  env: string;
}

export function toDestination(row: DestinationRow, env: string): Destination {
  return {
    id: row.id,
    appId: row.app_id,
    env,
    name: row.name,
    url: row.url,
    kinds: JSON.parse(row.kinds),
    filters: JSON.parse(row.filters),
    batchSize: Number(row.batch_size),
    status: row.status as DestinationStatus,
    version: Number(row.version),
    secretVersion: Number(row.secret_version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function healthOf(row: DestinationRow): Omit<DestinationHealth, 'backlog' | 'oldestPendingAt'> {
  return {
    lastAttemptAt: row.last_attempt_at,
    lastSuccessAt: row.last_success_at,
    consecutiveFailures: Number(row.consecutive_failures),
    lastError: row.last_error === null ? null : JSON.parse(row.last_error),
  };
}

const columnsOf = (fields: DestinationFields) => ({
  name: fields.name,
  url: fields.url,
  kinds: JSON.stringify(fields.kinds),
  filters: JSON.stringify(fields.filters),
  batch_size: fields.batchSize,
  status: fields.status,
});

/** Inserts a destination at version 1; false when its name is taken in the environment. */
export async function insertDestination(
  db: Executor,
  scope: DestinationScope,
  row: { id: string; fields: DestinationFields; secretSealed: string; at: string; startAt: number; startSeq: number },
): Promise<boolean> {
  const taken = await own(db)
    .selectFrom('export_destinations')
    .select('id')
    .where('env_id', '=', scope.envId)
    .where('name', '=', row.fields.name)
    .executeTakeFirst();
  if (taken) return false;
  try {
    await own(db)
      .insertInto('export_destinations')
      .values({
        id: row.id,
        app_id: scope.appId,
        env_id: scope.envId,
        env: scope.env,
        ...columnsOf(row.fields),
        version: 1,
        secret_version: 1,
        secret_sealed: row.secretSealed,
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        last_attempt_at: null,
        last_success_at: null,
        consecutive_failures: 0,
        last_error: null,
        failing_since: null,
        position_seq: row.startSeq,
        position_received_at: row.startAt,
        position_event_id: '',
        created_at: row.at,
        updated_at: row.at,
      })
      .execute();
    return true;
  } catch (err) {
    // A concurrent create of the same name committed between the check and the insert.
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function findDestination(db: Executor, envId: string, id: string): Promise<DestinationRow | undefined> {
  return own(db)
    .selectFrom('export_destinations')
    .selectAll()
    .where('env_id', '=', envId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function nameTaken(db: Executor, envId: string, name: string, exceptId: string): Promise<boolean> {
  return (
    (await own(db)
      .selectFrom('export_destinations')
      .select('id')
      .where('env_id', '=', envId)
      .where('name', '=', name)
      .where('id', '!=', exceptId)
      .executeTakeFirst()) !== undefined
  );
}

/** Keyset page ordered by id (ids are time-ordered). */
export async function listDestinations(
  db: Executor,
  envId: string,
  options: { status?: DestinationStatus; after?: string; limit: number },
): Promise<DestinationRow[]> {
  let q = own(db).selectFrom('export_destinations').selectAll().where('env_id', '=', envId);
  if (options.status) q = q.where('status', '=', options.status);
  if (options.after) q = q.where('id', '>', options.after);
  return q.orderBy('id').limit(options.limit).execute();
}

/** Writes the fields as version `expected + 1` if the row is still at `expected`. */
export async function updateDestination(
  db: Executor,
  id: string,
  expected: number,
  fields: DestinationFields,
  at: string,
  reactivated: boolean,
): Promise<boolean> {
  const result = await own(db)
    .updateTable('export_destinations')
    .set({
      ...columnsOf(fields),
      version: expected + 1,
      updated_at: at,
      ...(reactivated ? { consecutive_failures: 0, failing_since: null } : {}),
    })
    .where('id', '=', id)
    .where('version', '=', expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Replaces the secret (CAS on version); the old one stays valid for signing until `previousUntil`. */
export async function rotateSecret(
  db: Executor,
  row: DestinationRow,
  expected: number,
  secretSealed: string,
  previousUntil: string,
  at: string,
): Promise<boolean> {
  const result = await own(db)
    .updateTable('export_destinations')
    .set({
      secret_sealed: secretSealed,
      previous_secret_sealed: row.secret_sealed,
      previous_secret_expires_at: previousUntil,
      secret_version: Number(row.secret_version) + 1,
      version: expected + 1,
      updated_at: at,
    })
    .where('id', '=', row.id)
    .where('version', '=', expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// What the delivery worker reads and records on a destination.

export async function findDestinationById(db: Executor, id: string): Promise<DestinationRow | undefined> {
  return own(db).selectFrom('export_destinations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Active destinations, least advanced first: one scheduler run's round. */
export async function activeDestinations(db: Executor, limit: number): Promise<DestinationRow[]> {
  return own(db)
    .selectFrom('export_destinations')
    .selectAll()
    .where('status', '=', 'active')
    .orderBy('position_seq')
    .limit(limit)
    .execute();
}

/** Moves the feed position from `from` to `to`; false when another scheduler moved it first (compare-and-swap). */
export async function movePosition(
  db: Executor,
  id: string,
  from: { seq: number; eventId: string },
  to: { seq: number; eventId: string; receivedAt: number },
): Promise<boolean> {
  const moved = await own(db)
    .updateTable('export_destinations')
    .set({ position_seq: to.seq, position_event_id: to.eventId, position_received_at: to.receivedAt })
    .where('id', '=', id)
    .where('position_seq', '=', from.seq)
    .where('position_event_id', '=', from.eventId)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}

export async function recordSuccess(db: Executor, id: string, at: string): Promise<void> {
  await own(db)
    .updateTable('export_destinations')
    .set({ last_attempt_at: at, last_success_at: at, consecutive_failures: 0, failing_since: null })
    .where('id', '=', id)
    .execute();
}

/** One more failed attempt; the destination becomes disabled when `disable` says its failures have lasted too long. */
export async function recordFailure(
  db: Executor,
  id: string,
  failure: { at: string; error: unknown; failingSince: string; disable: boolean },
): Promise<void> {
  await own(db)
    .updateTable('export_destinations')
    .set((eb) => ({
      last_attempt_at: failure.at,
      consecutive_failures: eb('consecutive_failures', '+', 1),
      last_error: JSON.stringify(failure.error),
      failing_since: failure.failingSince,
      ...(failure.disable ? { status: 'disabled' } : {}),
    }))
    .where('id', '=', id)
    .execute();
}

// Subject erasure inside telemetry (issue 13): delete a subject's raw events, rebuild the hourly
// rollups they touched from the events that remain (sketches cannot subtract a subject), and keep
// tombstones that make ingestion drop the subject's old events that arrive late, for as long as
// ingestion accepts events that old (issue 18: 30 days, not the seed's 7-day lateness window).
import type { Executor } from '../../../db/transaction.js';
import { keyedHash } from '../../../platform/secret-box.js';
import { HOUR_MS, RAW_RETENTION_MS, type TelemetryEvent, type ValidEvent } from './telemetry.model.js';
import { keysApart } from './event-store.repository.js';
import { mergeRollups, rollupDeltas } from './rollups.repository.js';
import { writerSlot } from './writer-slot.js';
import type { SubjectErasureTables } from './subject-erasure.table.js';
import type { TelemetryEventsTable, TelemetryTables } from './telemetry.table.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<TelemetryTables & SubjectErasureTables>();

const REBUILD_PAGE = 5000;

/** The tombstone key of a subject in an environment: keyed with the server secret, never reversible. */
export function subjectHashOf(secret: string, envId: string, subject: string): string {
  return keyedHash(secret, 'subject-tombstone', `${envId}\u0000${subject}`);
}

/**
 * When a tombstone stops being needed: ingestion accepts an event up to RAW_RETENTION_MS old
 * (event-validation.ts), so an event stamped at the cutoff is accepted until cutoff + 30 days
 * inclusive, and the tombstone applies while `now < expires_at`. It keeps the keyed hash, the cutoff
 * and this instant, nothing more, and is deleted once it passes.
 */
export const tombstoneExpiryOf = (cutoff: number): number => cutoff + RAW_RETENTION_MS + 1;

/** Records (or moves forward) the subject's tombstone: events stamped at or before `cutoff` are dropped. */
export async function writeTombstone(
  db: Executor,
  row: { envId: string; subjectHash: string; cutoff: number },
): Promise<void> {
  const expiresAt = tombstoneExpiryOf(row.cutoff);
  await own(db)
    .insertInto('telemetry_tombstones')
    .values({ env_id: row.envId, subject_hash: row.subjectHash, cutoff: row.cutoff, expires_at: expiresAt })
    .onConflict((oc) =>
      oc.columns(['env_id', 'subject_hash']).doUpdateSet({ cutoff: row.cutoff, expires_at: expiresAt }),
    )
    .execute();
}

export async function purgeExpiredTombstones(db: Executor, now: number): Promise<number> {
  const result = await own(db).deleteFrom('telemetry_tombstones').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A batch as erasure sees it: whose events, when they arrived. */
interface ArrivedEvents {
  envId: string;
  receivedAt: number;
  events: readonly ValidEvent[];
}

/** Tombstones read per statement: the subjects of a group (up to 3,200) in a few IN lists. */
const TOMBSTONES_PER_READ = 500;

/**
 * The events of a group of batches that belong to a tombstoned subject and are stamped at or before
 * its cutoff: dropped (and answered accepted, so a client learns nothing about the erasure). Read in
 * the group's transaction, per environment rather than per batch: one probe for a live tombstone
 * (most environments hold none, which spares hashing every subject), then the tombstones of the
 * group's subjects where there are some. A tombstone applies to a batch that arrived before it expired.
 */
export async function erasedEvents(
  trx: Executor,
  secret: string,
  batches: readonly ArrivedEvents[],
): Promise<Set<ValidEvent>> {
  const erased = new Set<ValidEvent>();
  const byEnv = new Map<string, ArrivedEvents[]>();
  for (const batch of batches) {
    if (!batch.events.some((v) => v.event.targetingKey !== undefined)) continue;
    const list = byEnv.get(batch.envId);
    if (list) list.push(batch);
    else byEnv.set(batch.envId, [batch]);
  }
  for (const [envId, envBatches] of byEnv) {
    const since = Math.min(...envBatches.map((b) => b.receivedAt));
    const any = await own(trx)
      .selectFrom('telemetry_tombstones')
      .select('env_id')
      .where('env_id', '=', envId)
      .where('expires_at', '>', since)
      .limit(1)
      .executeTakeFirst();
    if (!any) continue;
    const hashes = new Map<string, string>();
    for (const batch of envBatches)
      for (const { event } of batch.events)
        if (event.targetingKey !== undefined && !hashes.has(event.targetingKey))
          hashes.set(event.targetingKey, subjectHashOf(secret, envId, event.targetingKey));
    const tombstones = new Map<string, { cutoff: number; expiresAt: number }>();
    const wanted = [...hashes.values()];
    for (let i = 0; i < wanted.length; i += TOMBSTONES_PER_READ) {
      const rows = await own(trx)
        .selectFrom('telemetry_tombstones')
        .select(['subject_hash', 'cutoff', 'expires_at'])
        .where('env_id', '=', envId)
        .where('subject_hash', 'in', wanted.slice(i, i + TOMBSTONES_PER_READ))
        .where('expires_at', '>', since)
        .execute();
      for (const r of rows)
        tombstones.set(r.subject_hash, { cutoff: Number(r.cutoff), expiresAt: Number(r.expires_at) });
    }
    if (tombstones.size === 0) continue;
    for (const batch of envBatches)
      for (const v of batch.events) {
        const subject = v.event.targetingKey;
        const tombstone = subject === undefined ? undefined : tombstones.get(hashes.get(subject)!);
        if (tombstone && batch.receivedAt < tombstone.expiresAt && v.event.ts <= tombstone.cutoff) erased.add(v);
      }
  }
  return erased;
}

function asValidEvent(row: TelemetryEventsTable): ValidEvent {
  const event: TelemetryEvent = { id: row.id, kind: row.kind as TelemetryEvent['kind'], ts: Number(row.ts) };
  if (row.targeting_key !== null) event.targetingKey = row.targeting_key;
  if (row.flag_key !== null) event.flagKey = row.flag_key;
  if (row.variant !== null) event.variant = row.variant;
  if (row.reason !== null) event.reason = row.reason;
  if (row.experiment_id !== null) event.experimentId = row.experiment_id;
  if (row.iteration_id !== null) event.iterationId = row.iteration_id;
  if (row.metric_key !== null) event.metricKey = row.metric_key;
  if (row.metric_value !== null) event.metricValue = Number(row.metric_value);
  return { index: 0, contentHash: '', event } as ValidEvent;
}

/**
 * Deletes every raw event (and dedup key) of the subject in the environment and rebuilds each hourly
 * bucket they were counted in from the events that remain. Run in one transaction: the subject's
 * contribution leaves the raw events and the rollups together. Returns how many events were deleted.
 */
export async function eraseSubjectEvents(trx: Executor, envId: string, subject: string, now: number): Promise<number> {
  const doomed = await own(trx)
    .selectFrom('telemetry_events')
    .select(['id', 'ts'])
    .where('env_id', '=', envId)
    .where('targeting_key', '=', subject)
    .execute();
  if (doomed.length === 0) return 0;
  const hours = [...new Set(doomed.map((r) => Math.floor(Number(r.ts) / HOUR_MS) * HOUR_MS))].sort((a, b) => a - b);
  await own(trx)
    .deleteFrom('telemetry_events')
    .where('env_id', '=', envId)
    .where('targeting_key', '=', subject)
    .execute();
  const ids = doomed.map((r) => r.id);
  // SQLite's dedup keys are the event rows themselves (decision 0047).
  if (keysApart(trx))
    for (let i = 0; i < ids.length; i += 500)
      await own(trx)
        .deleteFrom('telemetry_event_keys')
        .where('env_id', '=', envId)
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
  for (const hour of hours) await rebuildHour(trx, envId, hour, now);
  return doomed.length;
}

async function rebuildHour(trx: Executor, envId: string, hour: number, now: number): Promise<void> {
  // Every slot's rows of the hour go; the rebuilt bucket is written to this process's slot.
  await own(trx).deleteFrom('telemetry_rollups').where('env_id', '=', envId).where('bucket_start', '=', hour).execute();
  let after = '';
  for (;;) {
    const rows = await own(trx)
      .selectFrom('telemetry_events')
      .selectAll()
      .where('env_id', '=', envId)
      .where('ts', '>=', hour)
      .where('ts', '<', hour + HOUR_MS)
      .where('id', '>', after)
      .orderBy('id')
      .limit(REBUILD_PAGE)
      .execute();
    if (rows.length === 0) return;
    await mergeRollups(trx, rollupDeltas(envId, rows.map(asValidEvent), writerSlot(trx)), now);
    after = rows.at(-1)!.id;
  }
}

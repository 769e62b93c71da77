// Raw events read in order, for consumers outside the module (raw exports): the canonical wire
// shape with `receivedAt`, never the table's columns. Two orders: commit order (`feed_seq`, the live
// export feed, decision 0036) and arrival order (`received_at`, backfills of a past window).
import { commitHorizon, statementCommitHorizon } from '../../../db/commit-sequence.js';
import type { Executor } from '../../../db/transaction.js';
import { keysApart } from './event-store.repository.js';
import type { TelemetryEventsTable, TelemetryTables } from './telemetry.table.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<TelemetryTables>();

/** A raw event as exports carry it: the ingested fields as sent, with timestamp and receivedAt. */
export interface CanonicalEvent {
  id: string;
  kind: string;
  timestamp: string;
  receivedAt: string;
  targetingKey?: string;
  flagKey?: string;
  variant?: string;
  value?: unknown;
  reason?: string;
  experimentId?: string;
  iterationId?: string;
  iterationRevision?: number;
  metricKey?: string;
  metricValue?: number;
  attributes?: Record<string, unknown>;
}

export interface FeedPosition {
  receivedAt: number;
  eventId: string;
}

/** A place in the commit-ordered feed: after the event `eventId` of the transaction `seq`. */
export interface CommitPosition {
  seq: number;
  eventId: string;
}

/** Where a feed that starts now begins: no event committed from here on has a lower sequence. */
export async function feedStart(db: Executor): Promise<CommitPosition> {
  return { seq: await commitHorizon(db), eventId: '' };
}

function canonical(row: TelemetryEventsTable): CanonicalEvent {
  const event: CanonicalEvent = {
    id: row.id,
    kind: row.kind,
    timestamp: new Date(Number(row.ts)).toISOString(),
    receivedAt: new Date(Number(row.received_at)).toISOString(),
  };
  if (row.targeting_key !== null) event.targetingKey = row.targeting_key;
  if (row.flag_key !== null) event.flagKey = row.flag_key;
  if (row.variant !== null) event.variant = row.variant;
  if (row.value !== null) event.value = JSON.parse(row.value);
  if (row.reason !== null) event.reason = row.reason;
  if (row.experiment_id !== null) event.experimentId = row.experiment_id;
  if (row.iteration_id !== null) event.iterationId = row.iteration_id;
  if (row.iteration_revision !== null) event.iterationRevision = Number(row.iteration_revision);
  if (row.metric_key !== null) event.metricKey = row.metric_key;
  if (row.metric_value !== null && Number.isFinite(Number(row.metric_value)))
    event.metricValue = Number(row.metric_value);
  if (row.attributes !== null) event.attributes = JSON.parse(row.attributes);
  return event;
}

/** Up to `limit` events of the environment received after `after`, in (receivedAt, id) order. */
export async function eventsAfter(
  db: Executor,
  envId: string,
  after: FeedPosition,
  limit: number,
  receivedBefore?: number,
): Promise<Array<CanonicalEvent & { position: FeedPosition }>> {
  let q = own(db)
    .selectFrom('telemetry_events')
    .selectAll()
    .where('env_id', '=', envId)
    .where((eb) =>
      eb.or([
        eb('received_at', '>', after.receivedAt),
        eb.and([eb('received_at', '=', after.receivedAt), eb('id', '>', after.eventId)]),
      ]),
    );
  if (receivedBefore !== undefined) q = q.where('received_at', '<', receivedBefore);
  const rows = await q.orderBy('received_at').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ ...canonical(r), position: { receivedAt: Number(r.received_at), eventId: r.id } }));
}

/**
 * Up to `limit` events of the environment after `after` in commit order, only from transactions that
 * can no longer be joined by an earlier one: on PostgreSQL those below the oldest transaction still in
 * flight, taken from the very snapshot the rows are read with (a transaction that stamped its events
 * long ago but commits only now is not passed over: its sequence holds the horizon back until it
 * ends). On SQLite every committed transaction qualifies: one writer, sequences raised in commit order.
 */
export async function eventsCommittedAfter(
  db: Executor,
  envId: string,
  after: CommitPosition,
  limit: number,
): Promise<Array<CanonicalEvent & { position: CommitPosition }>> {
  // `feed_seq >= seq` first: a range on the (env_id, feed_seq, id) index. The OR alone made SQLite scan
  // the environment's events from the start on every read, quadratic in a backlog.
  let q = own(db)
    .selectFrom('telemetry_events')
    .selectAll()
    .where('env_id', '=', envId)
    .where('feed_seq', '>=', after.seq)
    .where((eb) => eb.or([eb('feed_seq', '>', after.seq), eb('id', '>', after.eventId)]));
  const horizon = statementCommitHorizon(db);
  if (horizon) q = q.where('feed_seq', '<', horizon);
  const rows = await q.orderBy('feed_seq').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ ...canonical(r), position: { seq: Number(r.feed_seq), eventId: r.id } }));
}

/**
 * The events of these ids still stored in the environment (erased or expired ones are gone), in
 * (receivedAt, id) order. One key lookup per id on both engines, never a walk over the environment:
 * - SQLite: the ids are the table's own key (env_id, id). The order is made here, not in SQL: with an
 *   ORDER BY, SQLite's planner walks the (env_id, received_at, id) index over every event of the
 *   environment to avoid a sort (59 ms per 100-event delivery at a 50k backlog).
 * - PostgreSQL: events are partitioned by day of event time and have no (env_id, id) index, so the
 *   dedup keys (env_id, id → ts) lead to each event's (env_id, ts, id) entry in its own partition.
 */
export async function eventsByIds(db: Executor, envId: string, ids: string[]): Promise<CanonicalEvent[]> {
  if (ids.length === 0) return [];
  const rows = await eventsByIdsQuery(db, envId, ids).execute();
  rows.sort((a, b) => Number(a.received_at) - Number(b.received_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return rows.map(canonical);
}

/** The query of `eventsByIds`, apart so a test can ask each engine how it plans it. */
export function eventsByIdsQuery(db: Executor, envId: string, ids: string[]) {
  return keysApart(db)
    ? own(db)
        .selectFrom('telemetry_event_keys as k')
        .innerJoin('telemetry_events as e', (join) =>
          join.onRef('e.env_id', '=', 'k.env_id').onRef('e.ts', '=', 'k.ts').onRef('e.id', '=', 'k.id'),
        )
        .selectAll('e')
        .where('k.env_id', '=', envId)
        .where('k.id', 'in', ids)
    : own(db).selectFrom('telemetry_events').selectAll().where('env_id', '=', envId).where('id', 'in', ids);
}

// The telemetry write path: one transaction per group of batches stores the new events (deduplicated by
// the event table's own primary key on SQLite, by telemetry_event_keys on PostgreSQL: decision 0047),
// merges the hourly rollups (rollups.repository.ts) and moves the watermark.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { ensureDayPartitions, partitionsByDay } from '../../../db/day-partitions.js';
import { sequenceToStamp } from '../../../db/commit-sequence.js';
import { repeatedInsert, type PostgresColumnTypes } from '../../../db/repeated-inserts.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import { mergeRollups, rollupDeltas } from './rollups.repository.js';
import type { TelemetryEventKeysTable, TelemetryEventsTable, TelemetryTables } from './telemetry.table.js';
import { DAY_MS, type ValidEvent } from './telemetry.model.js';
import { claimWriterSlot } from './writer-slot.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<TelemetryTables>();

/** `erased`: dropped for a tombstoned subject (StoreOptions.dropped), stored nothing, answered accepted. */
export type StoreOutcome = 'accepted' | 'duplicate' | 'conflict' | 'erased';

export interface StoreOptions {
  /** Which of the process's concurrent group transactions this is (writeLanes): each writes watermark
   * and rollup rows of its own slot. */
  lane?: number;
  /** Events of the group to drop rather than store, read in its transaction (erasure tombstones). */
  dropped?: (trx: Executor, inputs: readonly StoreBatchInput[]) => Promise<Set<ValidEvent>>;
}

const EVENT_COLUMNS = [
  'env_id',
  'id',
  'app_id',
  'kind',
  'ts',
  'received_at',
  'feed_seq',
  'targeting_key',
  'flag_key',
  'variant',
  'value',
  'reason',
  'experiment_id',
  'iteration_id',
  'iteration_revision',
  'metric_key',
  'metric_value',
  'attributes',
  'content_hash',
] as const satisfies readonly (keyof TelemetryEventsTable)[];

/** The PostgreSQL types of the event row's columns (migrations 0020, 0150, 0152). */
const EVENT_TYPES: PostgresColumnTypes<TelemetryEventsTable> = {
  env_id: 'text',
  id: 'text',
  app_id: 'text',
  kind: 'text',
  ts: 'bigint',
  received_at: 'bigint',
  feed_seq: 'bigint',
  targeting_key: 'text',
  flag_key: 'text',
  variant: 'text',
  value: 'text',
  reason: 'text',
  experiment_id: 'text',
  iteration_id: 'text',
  iteration_revision: 'integer',
  metric_key: 'text',
  metric_value: 'double precision',
  attributes: 'text',
  content_hash: 'text',
};

// The statements every group runs, compiled once (db/repeated-inserts.ts). They return the
// environment with each id: a group holds batches of any environment.
const insertEventKeys = repeatedInsert<TelemetryEventKeysTable, StoredKey>(
  ['env_id', 'id', 'content_hash', 'ts'],
  { env_id: 'text', id: 'text', content_hash: 'text', ts: 'bigint' },
  (trx, withRows) =>
    withRows(own(trx).insertInto('telemetry_event_keys'))
      .onConflict((oc) => oc.columns(['env_id', 'id']).doNothing())
      .returning(['env_id', 'id', 'content_hash']),
);
/** PostgreSQL: the rows of new ids, without feed_seq, which the column's default stamps (commit-sequence.ts). */
const insertEvents = repeatedInsert<TelemetryEventsTable>(
  EVENT_COLUMNS.filter((c) => c !== 'feed_seq'),
  EVENT_TYPES,
  (trx, withRows) => withRows(own(trx).insertInto('telemetry_events')),
);
/** SQLite: the events whose id is new for the environment are stored, the others skipped, in one statement. */
const insertNewEvents = repeatedInsert<TelemetryEventsTable, StoredKey>(
  EVENT_COLUMNS,
  EVENT_TYPES,
  (trx, withRows) =>
    withRows(own(trx).insertInto('telemetry_events'))
      .onConflict((oc) => oc.columns(['env_id', 'id']).doNothing())
      .returning(['env_id', 'id', 'content_hash']) as never,
);

/** An id stored for an environment, with the digest of the content stored under it. */
interface StoredKey {
  env_id: string;
  id: string;
  content_hash: string | null;
}

/**
 * SQLite binds one parameter per value: event rows go 100 to a statement (1,900 parameters, far
 * below its 32,766), the row counts whose statements are compiled and kept stay at most 100.
 * PostgreSQL binds one array per column, so a group's rows go in one statement whatever their number.
 */
const SQLITE_EVENTS_PER_STATEMENT = 100;

/**
 * Whether dedup keys live in telemetry_event_keys (PostgreSQL, where raw events are partitioned by
 * day and a unique key must include the event time) rather than in the event table's own primary
 * key (SQLite). Decision 0047.
 */
export function keysApart(db: Executor): boolean {
  return partitionsByDay(db);
}

function eventRow(
  envId: string,
  appId: string,
  receivedAt: number,
  feedSeq: number,
  v: ValidEvent,
): TelemetryEventsTable {
  const e = v.event;
  return {
    env_id: envId,
    id: e.id,
    app_id: appId,
    kind: e.kind,
    ts: e.ts,
    received_at: receivedAt,
    feed_seq: feedSeq,
    targeting_key: e.targetingKey ?? null,
    flag_key: e.flagKey ?? null,
    variant: e.variant ?? null,
    value: e.value === undefined ? null : JSON.stringify(e.value),
    reason: e.reason ?? null,
    experiment_id: e.experimentId ?? null,
    iteration_id: e.iterationId ?? null,
    iteration_revision: e.iterationRevision ?? null,
    metric_key: e.metricKey ?? null,
    metric_value: e.metricValue ?? null,
    attributes: e.attributes === undefined ? null : JSON.stringify(e.attributes),
    content_hash: v.contentHash,
  };
}

export interface StoreBatchInput {
  envId: string;
  appId: string;
  receivedAt: number;
  events: ValidEvent[];
}

/** Day partitions this process knows exist (PostgreSQL), so a batch rarely asks the catalog. */
const knownPartitions = new WeakMap<object, Set<number>>();

async function ensurePartitions(db: Kysely<Database>, events: ValidEvent[]): Promise<void> {
  if (!partitionsByDay(db)) return;
  let known = knownPartitions.get(db);
  if (!known) knownPartitions.set(db, (known = new Set()));
  const missing = new Set<number>();
  for (const { event } of events) {
    const day = Math.floor(event.ts / DAY_MS);
    if (!known.has(day)) missing.add(day);
  }
  if (missing.size === 0) return;
  await ensureDayPartitions(db, 'telemetry_events', missing);
  for (const day of missing) known.add(day);
}

/** What one batch stored inside a group's transaction: its outcomes, and the events it added. */
interface StoredBatch {
  outcomes: StoreOutcome[];
  accepted: ValidEvent[];
}

/** An (environment, event id) pair as a map key: length-prefixed, so injective whatever the ids hold. */
const idKey = (envId: string, id: string) => `${envId.length}:${envId}${id}`;

/** The group's new ids, by idKey, with their digests: the rows the dedup statement stored. */
async function insertKeysOrRows(
  trx: Executor,
  inputs: StoreBatchInput[],
  feedSeq: number,
  apart: boolean,
): Promise<Map<string, string | null>> {
  const fresh = new Map<string, string | null>();
  const keep = (rows: StoredKey[]) => {
    for (const r of rows) fresh.set(idKey(r.env_id, r.id), r.content_hash);
  };
  if (apart) {
    const keys = inputs.flatMap((input) =>
      input.events.map((v) => ({ env_id: input.envId, id: v.event.id, content_hash: v.contentHash, ts: v.event.ts })),
    );
    keep((await insertEventKeys(trx, keys)).rows);
    return fresh;
  }
  const rows = inputs.flatMap((input) =>
    input.events.map((v) => eventRow(input.envId, input.appId, input.receivedAt, feedSeq, v)),
  );
  for (let i = 0; i < rows.length; i += SQLITE_EVENTS_PER_STATEMENT)
    keep((await insertNewEvents(trx, rows.slice(i, i + SQLITE_EVENTS_PER_STATEMENT))).rows);
  return fresh;
}

/** The digests stored under ids that were not new, read per environment. */
async function storedDigests(trx: Executor, apart: boolean, idsByEnv: Map<string, Set<string>>) {
  const stored = new Map<string, string>();
  for (const [envId, ids] of idsByEnv) {
    const table = apart ? 'telemetry_event_keys' : 'telemetry_events';
    const rows = await own(trx)
      .selectFrom(table)
      .select(['id', 'content_hash'])
      .where('env_id', '=', envId)
      .where('id', 'in', [...ids])
      .execute();
    for (const r of rows) stored.set(idKey(envId, r.id), r.content_hash ?? '');
  }
  return stored;
}

/**
 * Dedup and raw rows of a group's batches, in few statements whatever the number of batches (each
 * statement is a round trip to the database, which on PostgreSQL cost more than the rows): the
 * keys of every batch in one insert (PostgreSQL) or the rows themselves 100 to a statement (SQLite),
 * then the rows of the new ids in one insert (PostgreSQL). An id is accepted at its first occurrence
 * in the group, in batch order then item order, exactly as if the batches had been stored one after
 * another; a later occurrence, in its batch or another, is a duplicate or a conflict of that one.
 */
async function storeRows(trx: Executor, inputs: StoreBatchInput[], feedSeq: number): Promise<StoredBatch[]> {
  const apart = keysApart(trx);
  // SQLite: new ids stored and the others skipped by the primary key; PostgreSQL: the keys first.
  const fresh = await insertKeysOrRows(trx, inputs, feedSeq, apart);
  const taken = new Set<string>();
  const unknown = new Map<string, Set<string>>();
  const accepted = inputs.map((input) => {
    const firsts: ValidEvent[] = [];
    for (const v of input.events) {
      const key = idKey(input.envId, v.event.id);
      if (fresh.has(key) && !taken.has(key)) {
        taken.add(key);
        firsts.push(v);
      } else if (!fresh.has(key)) {
        let ids = unknown.get(input.envId);
        if (!ids) unknown.set(input.envId, (ids = new Set()));
        ids.add(v.event.id);
      }
    }
    return firsts;
  });
  const stored = await storedDigests(trx, apart, unknown);
  for (const [key, digest] of fresh) stored.set(key, digest ?? '');
  if (apart) {
    const rows = inputs.flatMap((input, i) =>
      accepted[i]!.map((v) => eventRow(input.envId, input.appId, input.receivedAt, feedSeq, v)),
    );
    if (rows.length > 0) await insertEvents(trx, rows);
  }
  return inputs.map((input, i) => {
    const acceptedSet = new Set(accepted[i]);
    return {
      accepted: accepted[i]!,
      outcomes: input.events.map((v) =>
        acceptedSet.has(v)
          ? 'accepted'
          : stored.get(idKey(input.envId, v.event.id)) === v.contentHash
            ? 'duplicate'
            : 'conflict',
      ),
    };
  });
}

/**
 * Stores several batches in one transaction: an event is accepted when its id is new for the
 * environment, a duplicate when the stored event with that id has the same content, a conflict
 * otherwise. Rollups are merged once per environment for all the group's accepted events (a bucket
 * several batches touch is written once), and each environment's watermark moves to its newest
 * event. Returns one outcome list per batch, each in input order. Throws when storage fails:
 * nothing of the group is stored then.
 */
export async function storeBatches(
  db: Kysely<Database>,
  inputs: StoreBatchInput[],
  options: StoreOptions = {},
): Promise<StoreOutcome[][]> {
  const lane = options.lane ?? 0;
  if (inputs.every((i) => i.events.length === 0)) return inputs.map(() => []);
  await ensurePartitions(
    db,
    inputs.flatMap((i) => i.events),
  );
  return inTransaction(db, async (trx) => {
    // One sequence for the whole group: the export feed reads in commit order (decision 0036).
    // (PostgreSQL's rows are stamped by the column's default: the 0 below is never written there.)
    const feedSeq = (await sequenceToStamp(trx)) ?? 0;
    const results: StoreOutcome[][] = [];
    const byEnv = new Map<string, { accepted: ValidEvent[]; receivedAt: number; newest: string | null }>();
    const dropped = options.dropped ? await options.dropped(trx, inputs) : null;
    const kept =
      dropped === null || dropped.size === 0
        ? inputs
        : inputs.map((input) => ({ ...input, events: input.events.filter((v) => !dropped.has(v)) }));
    const batches = await storeRows(trx, kept, feedSeq);
    inputs.forEach((input, i) => {
      const batch = batches[i]!;
      results.push(kept === inputs ? batch.outcomes : withDropped(input.events, dropped!, batch.outcomes));
      const env = byEnv.get(input.envId) ?? { accepted: [], receivedAt: input.receivedAt, newest: null };
      env.accepted.push(...batch.accepted);
      if (batch.accepted.length > 0 && (env.newest === null || input.receivedAt >= env.receivedAt)) {
        env.receivedAt = input.receivedAt;
        env.newest = batch.accepted[batch.accepted.length - 1]!.event.id;
      }
      byEnv.set(input.envId, env);
    });
    // Environments in a fixed order: concurrent groups lock their rollups in the same order.
    const written = [...byEnv.entries()]
      .flatMap(([envId, env]) => (env.newest === null ? [] : [{ envId, ...env, newest: env.newest }]))
      .sort((a, b) => (a.envId < b.envId ? -1 : a.envId > b.envId ? 1 : 0));
    // One slot for the group's environments, claimed once (decision 0072).
    const slot = written.length > 0 ? await claimWriterSlot(trx, lane) : 0;
    for (const { envId, ...env } of written) {
      await mergeRollups(trx, rollupDeltas(envId, env.accepted, slot), env.receivedAt);
      await own(trx)
        .insertInto('telemetry_watermarks')
        .values({ env_id: envId, slot, received_at: env.receivedAt, event_id: env.newest })
        .onConflict((oc) =>
          oc
            .columns(['env_id', 'slot'])
            .doUpdateSet((eb) => ({
              received_at: eb.ref('excluded.received_at'),
              event_id: eb.ref('excluded.event_id'),
            }))
            .where('telemetry_watermarks.received_at', '<=', env.receivedAt),
        )
        .execute();
    }
    return results;
  });
}

/** A batch's outcomes in input order: its dropped events' and, between them, those of the rest. */
function withDropped(events: ValidEvent[], dropped: Set<ValidEvent>, keptOutcomes: StoreOutcome[]): StoreOutcome[] {
  let next = 0;
  return events.map((v) => (dropped.has(v) ? 'erased' : keptOutcomes[next++]!));
}

/** Stores one batch in a transaction of its own (see storeBatches). */
export async function storeBatch(db: Kysely<Database>, input: StoreBatchInput): Promise<StoreOutcome[]> {
  return (await storeBatches(db, [input]))[0]!;
}

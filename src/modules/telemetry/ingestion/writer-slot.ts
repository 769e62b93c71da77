// Which rows of an environment's watermark and rollups this process writes (decisions 0048, 0072).
import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { writersRunConcurrently } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';

/**
 * The writer slot of each of this process's write lanes (decision 0048): the watermark row and
 * rollup rows its batches write. On PostgreSQL one of 64, drawn at random when the process starts,
 * so processes ingesting into one environment lock rows of their own instead of taking turns on
 * shared ones; a lane that finds its slot in use by another process's transaction moves to another
 * (claimWriterSlot, decision 0072). An environment holds at most 64 watermark rows and a bucket at
 * most 64 rows. On SQLite, where one writer holds the database's write lock at a time anyway,
 * always 0.
 */
export const WRITER_SLOTS = 64;
const PROCESS_SLOT = randomInt(WRITER_SLOTS);
/** Each lane's slot; lane n starts n after the process's first (decision 0060: lanes lock no row in common). */
const laneSlots: number[] = [];

/**
 * The slot a process's write lane writes (decision 0060): on PostgreSQL each of a process's
 * concurrent group transactions has a slot of its own, so they lock no row in common either.
 */
export function writerSlot(db: Executor, lane = 0): number {
  if (!writersRunConcurrently(db)) return 0;
  return (laneSlots[lane] ??= (PROCESS_SLOT + lane) % WRITER_SLOTS);
}

/** The advisory-lock namespace of writer slots (pg_try_advisory_xact_lock's first key): "EnSl". */
export const SLOT_LOCKS = 0x456e536c;
/** Slots tried per transaction before writing the last one tried anyway (sharing is slower, never wrong). */
const CLAIM_ATTEMPTS = 4;

/**
 * The slot a group transaction writes, claimed for the rest of the transaction (decision 0072).
 * Two processes that drew the same slot would take turns on its rows for as long as they run (with
 * 64 slots: one pair in 64, and more likely than not among ten processes). So each transaction takes
 * a transaction-scoped advisory lock on its lane's slot without waiting; when another transaction
 * holds it, the lane moves to a slot none of this process's lanes uses and tries that. The lock
 * guards nothing the row locks do not: it only tells a writer that the slot is busy.
 */
export async function claimWriterSlot(trx: Executor, lane = 0): Promise<number> {
  let slot = writerSlot(trx, lane);
  if (!writersRunConcurrently(trx)) return slot;
  for (let attempt = 1; ; attempt++) {
    const { rows } = await sql<{
      claimed: boolean;
    }>`select pg_try_advisory_xact_lock(${SLOT_LOCKS}::integer, ${slot}::integer) as claimed`.execute(trx);
    if (rows[0]?.claimed || attempt === CLAIM_ATTEMPTS) return slot;
    slot = laneSlots[lane] = unusedSlot();
  }
}

/** A random slot that none of this process's lanes writes. */
function unusedSlot(): number {
  for (;;) {
    const slot = randomInt(WRITER_SLOTS);
    if (!laneSlots.includes(slot)) return slot;
  }
}

/**
 * How many group transactions a process runs at once (decision 0060): on PostgreSQL the configured
 * number (ENSIGN_TELEMETRY_WRITE_LANES, default 1): while one transaction waits on the database, the
 * next group is prepared and sent, so the process and the database work at the same time instead of
 * taking turns. On SQLite one writer holds the write lock at a time, so one.
 */
export function writeLanes(db: Executor, configured: number): number {
  return writersRunConcurrently(db) ? configured : 1;
}

// Which rows of an environment's watermark and rollups this process writes (decision 0048).
import { randomInt } from 'node:crypto';
import { writersRunConcurrently } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';

/**
 * The writer slot of this process (decision 0048): the watermark row and rollup rows its batches
 * write. On PostgreSQL one of 64, drawn once per process, so processes ingesting into one environment
 * lock rows of their own instead of taking turns on shared ones (two processes share a slot with
 * probability 1/64: they take turns then, as every process did before); a restart may draw another
 * slot, so an environment holds at most 64 watermark rows and a bucket at most 64 rows. On SQLite,
 * where one writer holds the database's write lock at a time anyway, always 0.
 */
export const WRITER_SLOTS = 64;
const PROCESS_SLOT = randomInt(WRITER_SLOTS);
/**
 * The slot a process's write lane writes (decision 0060): on PostgreSQL each of a process's
 * concurrent group transactions has a slot of its own, so they lock no row in common either.
 */
export function writerSlot(db: Executor, lane = 0): number {
  return writersRunConcurrently(db) ? (PROCESS_SLOT + lane) % WRITER_SLOTS : 0;
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

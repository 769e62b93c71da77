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
export function writerSlot(db: Executor): number {
  return writersRunConcurrently(db) ? PROCESS_SLOT : 0;
}

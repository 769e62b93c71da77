// Retention of telemetry: raw events 30 days (whole day partitions dropped on PostgreSQL), rollups
// 90 days, erasure tombstones until they expire. A plain function of `now`, run by the leased jobs
// runner (once an hour is plenty: a day partition becomes droppable once a day).
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { purgeBefore, type PurgeResult } from './retention.repository.js';
import { RAW_RETENTION_MS, ROLLUP_RETENTION_MS } from './telemetry.model.js';
import { purgeExpiredTombstones } from './subject-erasure.repository.js';

export type { PurgeResult };

/** Also deletes erasure tombstones that have expired (no event they would drop is accepted any more). */
export async function purgeExpiredTelemetry(
  db: Kysely<Database>,
  now: number,
): Promise<PurgeResult & { deletedTombstones: number }> {
  const purged = await purgeBefore(db, now - RAW_RETENTION_MS, now - ROLLUP_RETENTION_MS);
  return { ...purged, deletedTombstones: await purgeExpiredTombstones(db, now) };
}

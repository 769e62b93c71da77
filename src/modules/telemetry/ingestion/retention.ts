// Retention of telemetry: raw events 30 days (whole day partitions dropped on PostgreSQL), rollups
// 90 days. A plain function of `now`, run by the leased jobs runner (once an hour is plenty: a day
// partition becomes droppable once a day).
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { purgeBefore, type PurgeResult } from './telemetry.repository.js';
import { RAW_RETENTION_MS, ROLLUP_RETENTION_MS } from './telemetry.model.js';

export type { PurgeResult };

export async function purgeExpiredTelemetry(db: Kysely<Database>, now: number): Promise<PurgeResult> {
  return purgeBefore(db, now - RAW_RETENTION_MS, now - ROLLUP_RETENTION_MS);
}

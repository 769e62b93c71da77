// Telemetry retention as a recurring leased job: raw events leave after 30 days (whole day
// partitions on PostgreSQL), rollups after 90. Any process may run it and none runs it twice; a day
// partition becomes droppable once a day, and a repeated run finds nothing more to do.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { JobRunner } from '../../../jobs/index.js';
import { purgeExpiredTelemetry } from './retention.js';

export const PURGE_EXPIRED_TELEMETRY = 'telemetry.purge-expired';
const HOURLY = 60 * 60 * 1000;

export function registerTelemetryRetention(
  runner: JobRunner,
  db: Kysely<Database>,
  now: () => number = Date.now,
): void {
  runner.every(PURGE_EXPIRED_TELEMETRY, HOURLY, async () => {
    await purgeExpiredTelemetry(db, now());
  });
}

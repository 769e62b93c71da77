// Retention purges: whole day partitions dropped where the engine has them, expired rows deleted.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { dropDayPartitionsBefore } from '../../../db/day-partitions.js';
import { keysApart } from './event-store.repository.js';
import type { TelemetryTables } from './telemetry.table.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<TelemetryTables>();

export interface PurgeResult {
  droppedPartitions: number;
  deletedEvents: number;
  deletedKeys: number;
  deletedRollups: number;
}

export async function purgeBefore(
  db: Kysely<Database>,
  rawBefore: number,
  rollupsBefore: number,
): Promise<PurgeResult> {
  const droppedPartitions = await dropDayPartitionsBefore(db, 'telemetry_events', rawBefore);
  // On SQLite, and for rows in PostgreSQL's default partition, rows are deleted.
  const events = await own(db).deleteFrom('telemetry_events').where('ts', '<', rawBefore).executeTakeFirst();
  // SQLite's keys are the event rows just deleted.
  const keys = keysApart(db)
    ? await own(db).deleteFrom('telemetry_event_keys').where('ts', '<', rawBefore).executeTakeFirst()
    : events;
  const rollups = await own(db)
    .deleteFrom('telemetry_rollups')
    .where('bucket_start', '<', rollupsBefore)
    .executeTakeFirst();
  await own(db).deleteFrom('insight_legacy_cursors').where('used_at', '<', rawBefore).execute();
  return {
    droppedPartitions,
    deletedEvents: Number(events.numDeletedRows),
    deletedKeys: Number(keys.numDeletedRows),
    deletedRollups: Number(rollups.numDeletedRows),
  };
}

import { sql } from 'kysely';
import type { Executor } from '../../../db/transaction.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { MeteringTables } from './metering.table.js';

const own = ownTables<MeteringTables>();

export interface SyncIncrement {
  envId: string;
  appId: string;
  month: string;
  count: number;
}

export interface SyncTotal {
  envId: string;
  month: string;
  count: number;
}

// One statement per chunk keeps each write short; PostgreSQL accepts up to 65,535 parameters.
const CHUNK = 500;

/**
 * Adds the increments atomically (`count = count + excluded.count`, so concurrent processes never
 * lose each other's counts) and returns the merged totals. Each (envId, month) at most once.
 */
export async function addSyncCounts(db: Executor, increments: SyncIncrement[], at: string): Promise<SyncTotal[]> {
  const totals: SyncTotal[] = [];
  for (let i = 0; i < increments.length; i += CHUNK) {
    const rows = increments
      .slice(i, i + CHUNK)
      .map((r) => ({ env_id: r.envId, month: r.month, app_id: r.appId, count: r.count, updated_at: at }));
    const result = await own(db)
      .insertInto('config_sync_counts')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['env_id', 'month']).doUpdateSet({
          count: sql<number>`config_sync_counts.count + excluded.count`,
          updated_at: sql<string>`excluded.updated_at`,
        }),
      )
      .returning(['env_id', 'month', 'count'])
      .execute();
    for (const r of result) totals.push({ envId: r.env_id, month: r.month, count: Number(r.count) });
  }
  return totals;
}

export async function readSyncCount(db: Executor, envId: string, month: string): Promise<number> {
  const row = await own(db)
    .selectFrom('config_sync_counts')
    .select('count')
    .where('env_id', '=', envId)
    .where('month', '=', month)
    .executeTakeFirst();
  return row ? Number(row.count) : 0;
}

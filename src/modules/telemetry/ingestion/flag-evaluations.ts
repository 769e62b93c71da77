// How often flags were evaluated, read from the hourly rollups of `decision` events (never raw
// events): what the stale-flag report needs to tell a flag still in use from one nobody reads.
import type { Executor } from '../../../db/transaction.js';
import { HOUR_MS } from './telemetry.model.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { TelemetryTables } from './telemetry.table.js';

const own = ownTables<TelemetryTables>();

export interface FlagEvaluationCount {
  /** Decision events in the window. */
  count: number;
  /** Start of the newest retained hour with a decision event, RFC 3339; null if none is retained. */
  lastSeenAt: string | null;
}

/** Per flag key: decisions in [since, until) (hour-aligned outward) and the newest hour seen. */
export async function flagEvaluationsOf(
  db: Executor,
  envId: string,
  since: number,
  until: number,
): Promise<Map<string, FlagEvaluationCount>> {
  const from = Math.floor(since / HOUR_MS) * HOUR_MS;
  const [inWindow, newest] = await Promise.all([
    own(db)
      .selectFrom('telemetry_rollups')
      .select((eb) => ['flag_key', eb.fn.sum<number | string>('events').as('n')])
      .where('env_id', '=', envId)
      .where('kind', '=', 'decision')
      .where('bucket_start', '>=', from)
      .where('bucket_start', '<', until)
      .groupBy('flag_key')
      .execute(),
    own(db)
      .selectFrom('telemetry_rollups')
      .select((eb) => ['flag_key', eb.fn.max('bucket_start').as('last')])
      .where('env_id', '=', envId)
      .where('kind', '=', 'decision')
      .groupBy('flag_key')
      .execute(),
  ]);
  const out = new Map<string, FlagEvaluationCount>();
  for (const row of newest) {
    if (row.flag_key === '') continue;
    out.set(row.flag_key, { count: 0, lastSeenAt: new Date(Number(row.last)).toISOString() });
  }
  for (const row of inWindow) {
    if (row.flag_key === '') continue;
    const entry = out.get(row.flag_key) ?? { count: 0, lastSeenAt: null };
    entry.count = Number(row.n);
    out.set(row.flag_key, entry);
  }
  return out;
}

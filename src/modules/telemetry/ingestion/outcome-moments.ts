// Per-subject sums of one outcome metric over a window of raw events, reduced in the database to
// n, Σy, Σy² (nothing per subject leaves it). The population is every subject with any event in the
// window, so subjects without an outcome count as 0 (a proportion's non-converters).
import { sql } from 'kysely';
import type { Executor } from '../../../db/transaction.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { TelemetryTables } from './telemetry.table.js';

const own = ownTables<TelemetryTables>();

export interface OutcomeMoments {
  units: number;
  sum: number;
  sumSquares: number;
}

export async function outcomeMoments(
  db: Executor,
  envId: string,
  metricKey: string,
  window: { from: number; to: number },
  binary: boolean,
): Promise<OutcomeMoments> {
  const perSubject = own(db)
    .selectFrom('telemetry_events')
    .where('env_id', '=', envId)
    .where('ts', '>=', window.from)
    .where('ts', '<', window.to)
    .where('targeting_key', 'is not', null)
    .select('targeting_key')
    .select((eb) =>
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(eb.and([eb('kind', '=', 'outcome'), eb('metric_key', '=', metricKey)]))
            .then(eb.fn.coalesce('metric_value', sql<number>`1`))
            .else(sql<number>`0`)
            .end(),
        )
        .as('y'),
    )
    .groupBy('targeting_key');
  const rows = await own(db)
    .selectFrom(perSubject.as('s'))
    .select((eb) => [
      eb.fn.countAll<number>().as('units'),
      binary
        ? eb.fn
            .sum<number>(
              eb
                .case()
                .when('s.y', '>', 0)
                .then(sql<number>`1`)
                .else(sql<number>`0`)
                .end(),
            )
            .as('total')
        : eb.fn.sum<number>('s.y').as('total'),
      binary
        ? eb.fn
            .sum<number>(
              eb
                .case()
                .when('s.y', '>', 0)
                .then(sql<number>`1`)
                .else(sql<number>`0`)
                .end(),
            )
            .as('squares')
        : eb.fn.sum<number>(sql<number>`s.y * s.y`).as('squares'),
    ])
    .executeTakeFirst();
  return { units: Number(rows?.units ?? 0), sum: Number(rows?.total ?? 0), sumSquares: Number(rows?.squares ?? 0) };
}

// Raw events an experiment aggregation reads (issue 12), paged in (ts, id) order over the
// (env_id, ts, id) index so a run holds one page at a time, never the whole window.
import type { Executor } from '../../../db/transaction.js';
import { ownTables } from '../../../db/owned-tables.js';
import type { TelemetryTables } from './telemetry.table.js';

const own = ownTables<TelemetryTables>();

export interface ExperimentEvent {
  id: string;
  ts: number;
  kind: string;
  targetingKey: string;
  variant: string | null;
  metricKey: string | null;
  metricValue: number | null;
}

export interface EventWindow {
  envId: string;
  /** Event time bounds, Unix ms, inclusive. */
  from: number;
  to: number;
  /** Only events received at or before this instant (the run's watermark). */
  receivedUpTo: number;
}

export const EXPERIMENT_EVENT_PAGE = 5000;

async function* paged(db: Executor, window: EventWindow, narrow: (q: any) => any): AsyncGenerator<ExperimentEvent[]> {
  let after: { ts: number; id: string } | null = null;
  for (;;) {
    let q = own(db)
      .selectFrom('telemetry_events')
      .select(['id', 'ts', 'kind', 'targeting_key', 'variant', 'metric_key', 'metric_value'])
      .where('env_id', '=', window.envId)
      .where('ts', '>=', window.from)
      .where('ts', '<=', window.to)
      .where('received_at', '<=', window.receivedUpTo)
      .where('targeting_key', 'is not', null);
    if (after) {
      const { ts, id } = after;
      q = q.where((eb) => eb.or([eb('ts', '>', ts), eb.and([eb('ts', '=', ts), eb('id', '>', id)])]));
    }
    const rows = await narrow(q).orderBy('ts').orderBy('id').limit(EXPERIMENT_EVENT_PAGE).execute();
    if (rows.length === 0) return;
    yield rows.map((r: any): ExperimentEvent => ({
      id: r.id,
      ts: Number(r.ts),
      kind: r.kind,
      targetingKey: r.targeting_key,
      variant: r.variant,
      metricKey: r.metric_key,
      metricValue: r.metric_value === null ? null : Number(r.metric_value),
    }));
    if (rows.length < EXPERIMENT_EVENT_PAGE) return;
    const last = rows[rows.length - 1];
    after = { ts: Number(last.ts), id: last.id };
  }
}

/** Exposure and assignment events of one iteration. */
export function iterationAssignments(
  db: Executor,
  window: EventWindow,
  experimentId: string,
  iterationId: string,
): AsyncGenerator<ExperimentEvent[]> {
  return paged(db, window, (q) =>
    q
      .where('kind', 'in', ['exposure', 'assignment'])
      .where('experiment_id', '=', experimentId)
      .where('iteration_id', '=', iterationId),
  );
}

/** Outcome events of the given metric keys (outcomes need not name the experiment). */
export function outcomeEvents(
  db: Executor,
  window: EventWindow,
  metricKeys: readonly string[],
): AsyncGenerator<ExperimentEvent[]> {
  return paged(db, window, (q) => q.where('kind', '=', 'outcome').where('metric_key', 'in', [...metricKeys]));
}

/** The iterations a subject was exposed to or assigned in (read before its erasure, to recompute them). */
export async function iterationsOfSubject(
  db: Executor,
  envId: string,
  subject: string,
): Promise<{ experimentId: string; iterationId: string }[]> {
  const rows = await own(db)
    .selectFrom('telemetry_events')
    .select(['experiment_id', 'iteration_id'])
    .distinct()
    .where('env_id', '=', envId)
    .where('targeting_key', '=', subject)
    .where('kind', 'in', ['exposure', 'assignment'])
    .where('experiment_id', 'is not', null)
    .where('iteration_id', 'is not', null)
    .execute();
  return rows.map((r) => ({ experimentId: r.experiment_id!, iterationId: r.iteration_id! }));
}

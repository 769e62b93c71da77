// Ingestion: validate each item, refuse what a pub_ key may not report, admit what the environment's
// rate allows, store the rest in one transaction, answer one result per item in request order.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { AppError } from '../../../platform/errors.js';
import type { EnvironmentPrincipal } from '../../../platform/principal.js';
import { idOf, validateItem } from './event-validation.js';
import { createBatchWriter } from './batch-writer.js';
import { inlineGroupStore, type GroupStore } from './group-store.js';
import { writeLanes } from './writer-slot.js';
import type { BatchResult, ItemResult, ValidEvent } from './telemetry.model.js';
import { createTokenBuckets } from './token-buckets.js';

/** Whether a flag key is client-visible in the environment's current configuration. */
export type FlagVisibility = (flagKey: string) => boolean;

export interface TelemetryServiceDeps {
  db: Kysely<Database>;
  now: () => number;
  /** Token-bucket rate per environment (ENSIGN_TELEMETRY_EVENTS_PER_SECOND). */
  eventsPerSecond: number;
  /** The current client visibility of the principal's environment (from the in-memory snapshot). */
  clientVisibility(principal: EnvironmentPrincipal): FlagVisibility | Promise<FlagVisibility>;
  /** Where group transactions run (group-store.ts), erased subjects' old events dropped there; in
   * this thread on deps.db, dropping nothing, by default. */
  groups?: GroupStore;
  /** Group transactions at once on PostgreSQL (ENSIGN_TELEMETRY_WRITE_LANES, decision 0060); SQLite: 1. */
  writeLanes?: number;
}

export interface TelemetryService {
  ingest(principal: EnvironmentPrincipal, events: unknown[]): Promise<BatchResult>;
}

/** The 503 of a batch that could not be stored; `cause` (the storage error) reaches the error log,
 * never the answer. */
export function storageUnavailable(cause?: unknown): AppError {
  const error = new AppError(
    503,
    'service_unavailable',
    'Events could not be stored now; none of this batch was stored.',
    {
      resolution: 'Retry the whole batch with the same event ids after Retry-After seconds.',
      headers: { 'retry-after': '1' },
    },
  );
  if (cause !== undefined) error.cause = cause;
  return error;
}

export function createTelemetryService(deps: TelemetryServiceDeps): TelemetryService {
  const buckets = createTokenBuckets(deps.eventsPerSecond, deps.now);
  const writer = createBatchWriter(deps.groups ?? inlineGroupStore(deps.db), {
    lanes: writeLanes(deps.db, deps.writeLanes ?? 1),
  });

  return {
    async ingest(principal, items) {
      const now = deps.now();
      const results: ItemResult[] = new Array(items.length);
      const candidates: ValidEvent[] = [];
      const visibility = principal.type === 'pub' && items.length > 0 ? await deps.clientVisibility(principal) : null;
      items.forEach((item, index) => {
        const checked = validateItem(item, index, now);
        const id = idOf(item);
        if ('code' in checked) {
          results[index] = { index, id, status: 'permanent-error', code: checked.code, message: checked.message };
        } else if (visibility && checked.event.flagKey !== undefined && !visibility(checked.event.flagKey)) {
          results[index] = {
            index,
            id,
            status: 'permanent-error',
            code: 'flag_not_visible',
            message: 'This public key may only report flags that are client-visible in the environment.',
          };
        } else candidates.push(checked);
      });

      const { granted, retryAfterSeconds } = buckets.take(principal.envId, candidates.length);
      const admitted = candidates.slice(0, granted);
      for (const held of candidates.slice(granted)) {
        results[held.index] = {
          index: held.index,
          id: held.event.id,
          status: 'retryable-error',
          code: 'rate_limited',
          message: 'The environment is over its telemetry rate; retry this item later with the same id.',
          retryAfterSeconds,
        };
      }

      let outcomes;
      try {
        outcomes = await writer.store({
          envId: principal.envId,
          appId: principal.appId,
          receivedAt: now,
          events: admitted,
        });
      } catch (err) {
        throw storageUnavailable(err);
      }
      admitted.forEach((v, i) => {
        const outcome = outcomes[i]!;
        results[v.index] =
          outcome === 'conflict'
            ? {
                index: v.index,
                id: v.event.id,
                status: 'permanent-error',
                code: 'event_id_conflict',
                message: 'An event with this id and different content is already stored for this environment.',
              }
            : // An erased subject's event is answered accepted, so a client learns nothing about the erasure.
              { index: v.index, id: v.event.id, status: outcome === 'erased' ? 'accepted' : outcome };
      });

      let accepted = 0;
      let duplicates = 0;
      for (const r of results) {
        if (r.status === 'accepted') accepted++;
        else if (r.status === 'duplicate') duplicates++;
      }
      return {
        results,
        accepted,
        duplicates,
        rejected: results.length - accepted - duplicates,
        ...(granted < candidates.length ? { retryAfterSeconds } : {}),
      };
    },
  };
}

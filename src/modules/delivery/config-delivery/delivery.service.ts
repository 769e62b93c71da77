// Configuration delivery: compiled snapshots per (environment, audience) and monthly sync metering
// per environment. One per process, shared by every route that delivers configuration to
// environment keys (legacy routes, advanced configuration), so they share one quota.
import type { Kysely } from 'kysely';
import type { Plan, QuotaSet } from '../../../config.js';
import type { Database } from '../../../db/database.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { AppError } from '../../../platform/errors.js';
import type { DeliveryMetrics } from '../../../platform/prometheus-metrics.js';
import type { EnvironmentPrincipal } from '../../../platform/principal.js';
import { createSyncMeter, type SyncAdmission } from '../metering/index.js';
import type { ConfigStateStore, EnvironmentTarget } from '../../core/config/index.js';
import { entityTagKeyOf } from '../../../platform/entity-tag.js';
import type { Audience } from './legacy-envelope.js';
import { createSnapshotCache } from './snapshot-cache.js';
import type { Snapshot } from './snapshot.js';

export interface DeliveryDeps {
  db: Kysely<Database>;
  configStore: ConfigStateStore;
  /** Finds the app (and its owner) of an environment key. */
  access: AppAccess;
  /** The owner's plan, which sets the sync quota. */
  planOf: (userId: string) => Promise<Plan>;
  quotas: Record<Plan, QuotaSet>;
  secret: string;
  log: { warn(obj: object, msg: string): void; info(msg: string): void };
  /** Syncs, refusals, snapshot rebuilds and change notifications, for /metrics. */
  metrics?: DeliveryMetrics;
  /** Defaults: poll for config changes every 500 ms (null: never, notifications only), write sync counts every 500 ms. */
  pollIntervalMs?: number | null;
  flushIntervalMs?: number;
  /** The app's clock: the month a sync counts into, and the Retry-After of a refusal. */
  now?: () => number;
}

export interface DeliveryService {
  /** The current snapshot: synchronous when it is in memory, one read otherwise. Each version is a
   * new object, so other representations can be cached per snapshot (e.g. in a WeakMap). */
  snapshot(target: EnvironmentTarget, audience: Audience): Snapshot | Promise<Snapshot>;
  /** Counts one sync against the environment's monthly quota, or throws 429 / 503. */
  admit(principal: EnvironmentPrincipal): SyncAdmission | Promise<SyncAdmission>;
  /** Called once for each newer version of an environment (evaluation's event streams listen). */
  onAnnounce(listener: (envId: string, version: number) => void): () => void;
  /** Writes the syncs counted so far now (they are written every 500 ms anyway). */
  flushSyncCounts(): Promise<void>;
  close(): Promise<void>;
}

/** Counts a refused sync by its reason; returns the error to throw on. */
function refused(metrics: DeliveryMetrics, err: unknown): unknown {
  if (err instanceof AppError && err.statusCode === 429) metrics.syncRefused('quota');
  else if (err instanceof AppError && err.statusCode === 503) metrics.syncRefused('metering_unavailable');
  return err;
}

export function createDeliveryService(deps: DeliveryDeps): DeliveryService {
  const { metrics } = deps;
  const snapshots = createSnapshotCache({
    store: deps.configStore,
    tagKey: entityTagKeyOf(deps.secret),
    pollIntervalMs: deps.pollIntervalMs,
    metrics: deps.metrics,
    onPollError: (err) => deps.log.warn({ err }, 'could not poll for configuration changes'),
  });
  const meter = createSyncMeter<EnvironmentPrincipal>({
    db: deps.db,
    async quotaOf(principal) {
      const app = await deps.access.requireApp(principal, principal.appId, 'read');
      return deps.quotas[await deps.planOf(app.ownerUserId)].configSyncs;
    },
    flushIntervalMs: deps.flushIntervalMs,
    now: deps.now,
    onFlushError: (err) =>
      deps.log.warn({ err }, 'could not record configuration syncs; refusing syncs until it works'),
    onRecovered: () => deps.log.info('configuration syncs are recorded again; serving syncs'),
  });

  return {
    snapshot: (target, audience) => snapshots.peek(target.envId, audience) ?? snapshots.load(target, audience),
    admit(principal) {
      if (metrics === undefined) return meter.admit(principal);
      let admitted: SyncAdmission | Promise<SyncAdmission>;
      try {
        admitted = meter.admit(principal);
      } catch (err) {
        throw refused(metrics, err);
      }
      if (admitted instanceof Promise) {
        return admitted.then(
          (quota) => {
            metrics.syncAdmitted();
            return quota;
          },
          (err: unknown) => Promise.reject(refused(metrics, err)),
        );
      }
      metrics.syncAdmitted();
      return admitted;
    },
    onAnnounce: (listener) => snapshots.onAnnounce(listener),
    flushSyncCounts: () => meter.flush(),
    async close() {
      snapshots.close();
      await meter.close();
    },
  };
}

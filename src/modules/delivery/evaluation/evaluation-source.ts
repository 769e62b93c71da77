// The current evaluation set of each environment, built on the delivery service's snapshots: the
// delivery module drops a snapshot when the config store announces a newer version (LISTEN/NOTIFY
// across processes on PostgreSQL) or its polling finds one, so every process follows changes within
// a second. An evaluation set is built once per snapshot object, i.e. once per version.
import type { DeliveryMetrics, EvaluationMetrics } from '../../../platform/prometheus-metrics.js';
import type { DeliveryService, Snapshot } from '../config-delivery/index.js';
import type { EnvironmentTarget } from '../../core/config/index.js';
import { buildEvaluationSet, type EvaluationSet } from './evaluation-set.js';

export type SnapshotProvider = Pick<DeliveryService, 'snapshot' | 'onAnnounce'>;

export interface EvaluationSource {
  /**
   * The environment's current set: synchronous when it is in memory, one read otherwise. With
   * `atLeast`, a set older than that version waits (up to `announceWaitMs`) for this process to
   * learn of the newer one: a client told of a change by an event stream served by another process
   * may ask this one before the change notification reaches it.
   */
  current(target: EnvironmentTarget, atLeast?: number): EvaluationSet | Promise<EvaluationSet>;
  /** Called once per newer version of an environment, however it was learned. */
  onChange(listener: (envId: string, version: number) => void): () => void;
}

/** Polling finds what notifications miss within a second: waiting longer would not help. */
const ANNOUNCE_WAIT_MS = 1500;

export interface EvaluationSourceMetrics {
  delivery: Pick<DeliveryMetrics, 'snapshotBuilt'>;
  evaluation: EvaluationMetrics;
}

export function createEvaluationSource(
  delivery: SnapshotProvider,
  metrics?: EvaluationSourceMetrics,
): EvaluationSource {
  const sets = new WeakMap<Snapshot, EvaluationSet>();

  function setOf(snapshot: Snapshot): EvaluationSet {
    let set = sets.get(snapshot);
    if (set === undefined) {
      set = buildEvaluationSet({ version: snapshot.version, state: snapshot.state }, metrics?.evaluation);
      sets.set(snapshot, set);
      metrics?.delivery.snapshotBuilt('evaluation');
    }
    return set;
  }

  function announced(envId: string, version: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        resolve();
      };
      const off = delivery.onAnnounce((changed, newer) => {
        if (changed === envId && newer >= version) done();
      });
      const timer = setTimeout(done, ANNOUNCE_WAIT_MS);
    });
  }

  // Every flag is compiled whoever asks (the server audience's snapshot): a client-visible flag may
  // depend on a hidden one.
  const latest = (target: EnvironmentTarget) => {
    const found = delivery.snapshot(target, 'server');
    return found instanceof Promise ? found.then(setOf) : setOf(found);
  };

  return {
    current(target, atLeast) {
      const found = latest(target);
      if (atLeast === undefined) return found;
      return (async () => {
        const set = await found;
        if (set.version >= atLeast) return set;
        await announced(target.envId, atLeast);
        return latest(target);
      })();
    },
    onChange: (listener) => delivery.onAnnounce(listener),
  };
}

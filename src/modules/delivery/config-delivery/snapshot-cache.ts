// Compiled snapshots per (environment, audience), held in memory and rebuilt once per version.
// An environment's snapshots are dropped when a newer version is announced: by the config store's
// change notifications (LISTEN/NOTIFY across processes on PostgreSQL) and, for notifications lost
// while a listener reconnects (or never sent, as between SQLite processes), by polling the store for
// recently changed environments.
import type { DeliveryMetrics } from '../../../platform/prometheus-metrics.js';
import type { ConfigChange, ConfigStateStore, CurrentConfig, EnvironmentTarget } from '../../core/config/index.js';
import type { Audience } from './legacy-envelope.js';
import { compileSnapshot, type Snapshot } from './snapshot.js';

/** Writers stamp changes with their own clock just before committing: re-reading this much before
 * the newest stamp seen covers late commits and clocks that disagree by less than this. */
const POLL_OVERLAP_MS = 5000;

export interface SnapshotCacheOptions {
  store: Pick<ConfigStateStore, 'current' | 'changedSince' | 'onChange'>;
  tagKey: Buffer;
  /**
   * How often to poll for changes; at most 1 s so a missed notification costs at most that. null
   * turns polling off: only notifications announce changes (tests prove notifications with it).
   */
  pollIntervalMs?: number | null;
  /** Environments kept in memory; the oldest is dropped past this (and rebuilt on its next sync). */
  maxEnvironments?: number;
  onPollError?: (err: unknown) => void;
  metrics?: Pick<DeliveryMetrics, 'snapshotBuilt' | 'changeNotified'>;
}

export interface SnapshotCache {
  /** The current snapshot if it is in memory: the synchronous hot path. */
  peek(envId: string, audience: Audience): Snapshot | undefined;
  /** Compiles the snapshot, reading the environment once however many requests wait for it. */
  load(target: EnvironmentTarget, audience: Audience): Promise<Snapshot>;
  /** Called once for each newer version of an environment, however it was learned. */
  onAnnounce(listener: (envId: string, version: number) => void): () => void;
  /** Asks the store for changes now; the timer does this every `pollIntervalMs`. */
  poll(): Promise<void>;
  close(): void;
}

/** One environment at one version: its state read once, compiled per audience on demand. */
interface Slot extends CurrentConfig {
  envId: string;
  server?: Snapshot;
  client?: Snapshot;
}

export function createSnapshotCache(options: SnapshotCacheOptions): SnapshotCache {
  const { store, tagKey } = options;
  const maxEnvironments = options.maxEnvironments ?? 10_000;
  const slots = new Map<string, Slot>();
  /** The newest version announced per environment: a read that returned an older one is not kept. */
  const announced = new Map<string, number>();
  const reading = new Map<string, Promise<Slot>>();
  const listeners = new Set<(envId: string, version: number) => void>();
  let newestStamp = new Date().toISOString();
  let polling: Promise<void> | null = null;

  function announce(envId: string, version: number) {
    if (version <= (announced.get(envId) ?? -1)) return;
    announced.set(envId, version);
    const slot = slots.get(envId);
    if (slot && slot.version < version) slots.delete(envId);
    for (const listener of listeners) listener(envId, version);
  }

  function isCurrent(slot: Slot): boolean {
    return slot.version >= (announced.get(slot.envId) ?? -1);
  }

  /** The environment's current slot: the one in memory, or one read from the store. */
  function slotOf(target: EnvironmentTarget): Slot | Promise<Slot> {
    const held = slots.get(target.envId);
    if (held) return held;
    let pending = reading.get(target.envId);
    if (!pending) {
      pending = store
        .current(target)
        .then((current) => {
          const slot: Slot = { envId: target.envId, version: current.version, state: current.state };
          // Announced while we read: serve what was read to those waiting, but do not keep it.
          if (isCurrent(slot)) {
            if (slots.size >= maxEnvironments) slots.delete(slots.keys().next().value!);
            slots.set(target.envId, slot);
          }
          return slot;
        })
        .finally(() => reading.delete(target.envId));
      reading.set(target.envId, pending);
    }
    return pending;
  }

  function snapshotOf(slot: Slot, target: EnvironmentTarget, audience: Audience): Snapshot {
    let snapshot = slot[audience];
    if (snapshot === undefined) {
      snapshot = slot[audience] = compileSnapshot(target, slot, audience, tagKey);
      options.metrics?.snapshotBuilt('delivery');
    }
    return snapshot;
  }

  async function pollOnce() {
    try {
      const since = new Date(Date.parse(newestStamp) - POLL_OVERLAP_MS).toISOString();
      for (const change of await store.changedSince(since)) {
        if (change.version > (announced.get(change.envId) ?? -1)) options.metrics?.changeNotified('poll');
        announce(change.envId, change.version);
        if (change.updatedAt > newestStamp) newestStamp = change.updatedAt;
      }
    } catch (err) {
      options.onPollError?.(err);
    }
  }

  function poll(): Promise<void> {
    polling ??= pollOnce().finally(() => (polling = null));
    return polling;
  }

  const unsubscribe = store.onChange((change: ConfigChange) => {
    // The channel may carry other messages one day; only well-formed announcements count.
    if (typeof change?.envId === 'string' && Number.isInteger(change.version)) {
      options.metrics?.changeNotified('notification');
      announce(change.envId, change.version);
    }
  });
  const timer =
    options.pollIntervalMs === null
      ? null
      : setInterval(() => void poll(), Math.min(options.pollIntervalMs ?? 500, 1000));
  timer?.unref();

  return {
    peek: (envId, audience) => slots.get(envId)?.[audience],
    async load(target, audience) {
      const slot = await slotOf(target);
      return snapshotOf(slot, target, audience);
    },
    onAnnounce(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    poll,
    close() {
      if (timer) clearInterval(timer);
      unsubscribe();
      listeners.clear();
    },
  };
}

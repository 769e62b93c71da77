// Compiled snapshots per (environment, audience), held in memory and rebuilt once per version.
// A snapshot is dropped when a newer version is announced: by the config store's change
// notifications (LISTEN/NOTIFY across processes on PostgreSQL) and, for notifications lost while a
// listener reconnects, by polling the store for recently changed environments.
import type { ConfigChange, ConfigStateStore, EnvironmentTarget } from '../versions/index.js';
import type { Audience } from './legacy-envelope.js';
import { compileSnapshot, type Snapshot } from './snapshot.js';

/** Writers stamp changes with their own clock just before committing: re-reading this much before
 * the newest stamp seen covers late commits and clocks that disagree by less than this. */
const POLL_OVERLAP_MS = 5000;

export interface SnapshotCacheOptions {
  store: Pick<ConfigStateStore, 'current' | 'changedSince' | 'onChange'>;
  tagKey: Buffer;
  /** How often to poll for changes; at most 1 s so a missed notification costs at most that. */
  pollIntervalMs?: number;
  /** Environments kept in memory; the oldest is dropped past this (and rebuilt on its next sync). */
  maxEnvironments?: number;
  onPollError?: (err: unknown) => void;
}

export interface SnapshotCache {
  /** The current snapshot if it is in memory: the synchronous hot path. */
  peek(envId: string, audience: Audience): Snapshot | undefined;
  /** Reads and compiles the snapshot (one read per environment and audience, however many wait). */
  load(target: EnvironmentTarget, audience: Audience): Promise<Snapshot>;
  /** Asks the store for changes now; the timer does this every `pollIntervalMs`. */
  poll(): Promise<void>;
  close(): void;
}

type Slot = { [A in Audience]?: Snapshot };

export function createSnapshotCache(options: SnapshotCacheOptions): SnapshotCache {
  const { store, tagKey } = options;
  const maxEnvironments = options.maxEnvironments ?? 10_000;
  const slots = new Map<string, Slot>();
  /** The newest version announced per environment: a load that read an older one is not kept. */
  const announced = new Map<string, number>();
  const loading = new Map<string, Promise<Snapshot>>();
  let newestStamp = new Date().toISOString();
  let polling: Promise<void> | null = null;

  function announce(envId: string, version: number) {
    if (version > (announced.get(envId) ?? -1)) announced.set(envId, version);
    const slot = slots.get(envId);
    if (!slot) return;
    if (slot.server && slot.server.version < version) slot.server = undefined;
    if (slot.client && slot.client.version < version) slot.client = undefined;
  }

  function keep(snapshot: Snapshot, audience: Audience) {
    let slot = slots.get(snapshot.envId);
    if (!slot) {
      if (slots.size >= maxEnvironments) slots.delete(slots.keys().next().value!);
      slot = {};
      slots.set(snapshot.envId, slot);
    }
    slot[audience] = snapshot;
  }

  async function pollOnce() {
    try {
      const since = new Date(Date.parse(newestStamp) - POLL_OVERLAP_MS).toISOString();
      for (const change of await store.changedSince(since)) {
        announce(change.envId, change.version);
        if (change.updatedAt > newestStamp) newestStamp = change.updatedAt;
      }
    } catch (err) {
      options.onPollError?.(err);
    }
  }

  const unsubscribe = store.onChange((change: ConfigChange) => {
    // The channel may carry other messages one day; only well-formed announcements count.
    if (typeof change?.envId === 'string' && Number.isInteger(change.version)) announce(change.envId, change.version);
  });
  const timer = setInterval(() => void poll(), Math.min(options.pollIntervalMs ?? 500, 1000));
  timer.unref();

  function poll(): Promise<void> {
    polling ??= pollOnce().finally(() => (polling = null));
    return polling;
  }

  return {
    peek: (envId, audience) => slots.get(envId)?.[audience],
    load(target, audience) {
      const key = `${target.envId}/${audience}`;
      let pending = loading.get(key);
      if (!pending) {
        pending = store
          .current(target)
          .then((current) => {
            const snapshot = compileSnapshot(target, current, audience, tagKey);
            // Announced while we read: serve what was read to those waiting, but do not keep it.
            if (current.version >= (announced.get(target.envId) ?? -1)) keep(snapshot, audience);
            return snapshot;
          })
          .finally(() => loading.delete(key));
        loading.set(key, pending);
      }
      return pending;
    },
    poll,
    close() {
      clearInterval(timer);
      unsubscribe();
    },
  };
}

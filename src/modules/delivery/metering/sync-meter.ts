// Monthly configuration-sync metering per environment (UTC calendar month). Counting happens in
// memory on the request path; a timer adds the counts to the database in batches with atomic
// increments, and learns the merged totals (other processes' counts included) from the same
// statement. If a batch cannot be written, every sync is refused with 503 until one can: the seed
// says metering fails closed, and an unmetered sync could never be billed or limited.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { AppError } from '../../../platform/errors.js';
import { addSyncCounts, readSyncCount, type SyncIncrement } from './metering.repository.js';

export interface MeterSubject {
  envId: string;
  appId: string;
}

export interface SyncAdmission {
  limit: number;
  /** Syncs left this month after this one. */
  remaining: number;
}

export interface SyncMeterOptions<S extends MeterSubject> {
  db: Kysely<Database>;
  /** The environment's monthly quota (its app owner's plan); re-read every `quotaTtlMs`. */
  quotaOf: (subject: S) => Promise<number>;
  flushIntervalMs?: number;
  quotaTtlMs?: number;
  now?: () => number;
  /** Called when writing starts failing (not again while it keeps failing). */
  onFlushError?: (err: unknown) => void;
  /** Called when writing works again after failing. */
  onRecovered?: () => void;
}

export interface SyncMeter<S extends MeterSubject> {
  /** Counts one sync if the quota allows (429) and metering works (503). Synchronous once the
   * environment's count is known; the first sync of an environment waits for one read. */
  admit(subject: S): SyncAdmission | Promise<SyncAdmission>;
  /** Writes the counts gathered so far (after a write under way, which may hold only some of them). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
}

interface EnvCount {
  envId: string;
  appId: string;
  /** The stored total for the current month as of the last write or read (all processes). */
  stored: number;
  /** Counted here, not yet written. */
  pending: number;
  /** Counted here and being written right now: still part of the total until the write answers. */
  inFlight: number;
  limit: number;
  quotaReadAt: number;
  quotaReading: boolean;
}

export function monthKeyOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

export function nextMonthStartOf(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

function quotaExceeded(limit: number, retryAfterSeconds: number) {
  return new AppError(
    429,
    'monthly_config_sync_quota_exceeded',
    `This environment has used its ${limit} configuration syncs for this month.`,
    {
      legacyCode: 'MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED',
      resolution:
        'Wait until the next calendar month (UTC; see Retry-After), sync less often, or move the app owner to a larger plan.',
      headers: {
        'retry-after': String(retryAfterSeconds),
        'x-sync-quota-limit': String(limit),
        'x-sync-quota-remaining': '0',
      },
    },
  );
}

export function meteringUnavailable() {
  return new AppError(
    503,
    'config_sync_metering_unavailable',
    'Configuration syncs cannot be metered right now, so none are served.',
    {
      legacyCode: 'CONFIG_SYNC_METERING_UNAVAILABLE',
      resolution: 'Retry after the time given in Retry-After; keep serving the configuration you already have.',
      headers: { 'retry-after': '1' },
    },
  );
}

export function createSyncMeter<S extends MeterSubject>(options: SyncMeterOptions<S>): SyncMeter<S> {
  const { db, quotaOf } = options;
  const now = options.now ?? Date.now;
  const quotaTtlMs = options.quotaTtlMs ?? 60_000;
  const counts = new Map<string, EnvCount>();
  const loading = new Map<string, Promise<EnvCount>>();
  /** Environments with pending counts, so a flush does not walk every environment. */
  let dirty: EnvCount[] = [];
  /** Counts of a month that has ended, still to be written. */
  let carried: SyncIncrement[] = [];
  let month = monthKeyOf(now());
  let monthEndsAt = nextMonthStartOf(now());
  let failing = false;
  let flushing: Promise<void> | null = null;

  function rollMonth(at: number) {
    for (const c of dirty) carried.push({ envId: c.envId, appId: c.appId, month, count: c.pending });
    for (const c of counts.values()) {
      c.pending = 0;
      c.inFlight = 0;
      c.stored = 0;
    }
    dirty = [];
    month = monthKeyOf(at);
    monthEndsAt = nextMonthStartOf(at);
  }

  function count(c: EnvCount, at: number): SyncAdmission {
    const used = c.stored + c.inFlight + c.pending;
    if (used >= c.limit) throw quotaExceeded(c.limit, Math.max(1, Math.ceil((monthEndsAt - at) / 1000)));
    if (c.pending++ === 0) dirty.push(c);
    return { limit: c.limit, remaining: c.limit - used - 1 };
  }

  function refreshQuota(c: EnvCount, subject: S, at: number) {
    if (c.quotaReading) return;
    c.quotaReading = true;
    c.quotaReadAt = at;
    quotaOf(subject)
      .then((limit) => (c.limit = limit))
      .catch(() => undefined) // keep the last known quota; the next sync after the TTL tries again
      .finally(() => (c.quotaReading = false));
  }

  async function load(subject: S): Promise<EnvCount> {
    const key = subject.envId;
    let pending = loading.get(key);
    if (!pending) {
      const forMonth = month;
      pending = Promise.all([quotaOf(subject), readSyncCount(db, key, forMonth)])
        .then(([limit, stored]) => {
          const c: EnvCount = {
            envId: key,
            appId: subject.appId,
            stored: forMonth === month ? stored : 0,
            pending: 0,
            inFlight: 0,
            limit,
            quotaReadAt: now(),
            quotaReading: false,
          };
          counts.set(key, c);
          return c;
        })
        .finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    try {
      return await pending;
    } catch {
      throw meteringUnavailable();
    }
  }

  /** Takes every pending count out of memory as one batch, one increment per (environment, month). */
  function takeBatch(): SyncIncrement[] {
    const merged = new Map<string, SyncIncrement>();
    const add = (inc: SyncIncrement) => {
      const key = `${inc.month}\u0000${inc.envId}`;
      const found = merged.get(key);
      if (found) found.count += inc.count;
      else merged.set(key, { ...inc });
    };
    carried.forEach(add);
    for (const c of dirty) add({ envId: c.envId, appId: c.appId, month, count: c.pending });
    for (const c of dirty) {
      c.inFlight += c.pending;
      c.pending = 0;
    }
    carried = [];
    dirty = [];
    return [...merged.values()];
  }

  /** A failed batch goes back into memory, to be written by the next attempt. */
  function restore(batch: SyncIncrement[]) {
    for (const inc of batch) {
      const c = inc.month === month ? counts.get(inc.envId) : undefined;
      if (!c) {
        carried.push(inc);
        continue;
      }
      c.inFlight = Math.max(0, c.inFlight - inc.count);
      if (c.pending === 0) dirty.push(c);
      c.pending += inc.count;
    }
  }

  async function writeBatch() {
    const batch = takeBatch();
    if (batch.length === 0) return;
    try {
      const totals = await addSyncCounts(db, batch, new Date(now()).toISOString());
      if (failing) options.onRecovered?.();
      failing = false;
      for (const inc of batch) {
        const c = inc.month === month ? counts.get(inc.envId) : undefined;
        if (c) c.inFlight = Math.max(0, c.inFlight - inc.count);
      }
      for (const t of totals) {
        const c = t.month === month ? counts.get(t.envId) : undefined;
        if (c) c.stored = t.count;
      }
    } catch (err) {
      restore(batch);
      if (!failing) options.onFlushError?.(err);
      failing = true;
    }
  }

  function flush(): Promise<void> {
    flushing ??= writeBatch().finally(() => (flushing = null));
    return flushing;
  }

  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 500);
  timer.unref();

  return {
    admit(subject) {
      if (failing) throw meteringUnavailable();
      const at = now();
      if (at >= monthEndsAt) rollMonth(at);
      const c = counts.get(subject.envId);
      if (c === undefined) return load(subject).then((loaded) => count(loaded, now()));
      if (at - c.quotaReadAt > quotaTtlMs) refreshQuota(c, subject, at);
      return count(c, at);
    },
    // A write under way took its batch before the latest counts: they go in the next one.
    flush: () => (flushing ? flushing.then(flush) : flush()),
    async close() {
      clearInterval(timer);
      await flushing;
      await flush();
    },
  };
}

// A process that was stopped (SIGSTOP, a paused VM, a long synchronous stretch) wakes with every timer
// that fell due meanwhile: node-postgres's 5 s acquire and connect timeouts fire at once although the
// database answered in time and the wait was the process's own. Measured: one of two processes paused
// for 6 s answered a batch 503 "Connection terminated due to connection timeout" on waking. A
// connection wait that timed out across such a stall is tried again, with the same timeout, at most
// twice; one that timed out while the process ran is reported as before (503 with Retry-After).
import { performance } from 'node:perf_hooks';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Ticks further apart than this mean the process did not run in between. */
const STALL_MS = 1000;
const TICK_MS = 250;
const RETRIES_AFTER_STALL = 2;
/** node-postgres's two connection timeouts: waiting for a pooled client, connecting a new one. */
const CONNECT_TIMEOUT = /timeout exceeded when trying to connect|Connection terminated due to connection timeout/;

export interface StallWatch {
  now(): number;
  /** True when the process stood still at some point since `start` (a time of `now()`). */
  stalledSince(start: number): boolean;
  /** Records that the process runs now (the interval calls it; tests call it with their clock). */
  tick(): void;
}

export function createStallWatch(now: () => number = () => performance.now()): StallWatch {
  let lastTick = now();
  let lastStallEnd = -Infinity;
  return {
    now,
    stalledSince(start) {
      // Right after waking, the timeout may run before the tick that would record the stall.
      return now() - lastTick > STALL_MS || lastStallEnd >= start;
    },
    tick() {
      const at = now();
      if (at - lastTick > STALL_MS) lastStallEnd = at;
      lastTick = at;
    },
  };
}

let shared: StallWatch | undefined;
/** One watch per process, ticking while a PostgreSQL pool exists (it never keeps the process alive). */
function processStallWatch(): StallWatch {
  if (shared) return shared;
  const watch = createStallWatch();
  setInterval(() => watch.tick(), TICK_MS).unref();
  return (shared = watch);
}

/** The pool as Kysely sees it, its connection timeouts forgiving of the process's own stalls. */
export function stallTolerant(
  pool: { connect(): Promise<PostgresPoolClient>; end(): Promise<void> },
  watch: StallWatch = processStallWatch(),
): PostgresPool {
  return {
    async connect() {
      for (let retry = 0; ; retry++) {
        const start = watch.now();
        try {
          return await pool.connect();
        } catch (err) {
          const timedOut = err instanceof Error && CONNECT_TIMEOUT.test(err.message);
          if (!timedOut || retry >= RETRIES_AFTER_STALL || !watch.stalledSince(start)) throw err;
        }
      }
    },
    end: () => pool.end(),
  };
}

// Configuration-change notifications between processes. On PostgreSQL: NOTIFY inside the writing
// transaction (delivered only if it commits) and a dedicated LISTEN connection that reconnects; on
// SQLite (one process): an in-process emitter. Readers keep a polling fallback for missed messages.
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type pg from 'pg';
import type { DbHandle } from './create-db.js';
import type { Executor } from './transaction.js';

export interface ChangeNotifier {
  /** Publishes inside the caller's transaction; listeners hear it once the transaction commits. */
  publish(trx: Executor, payload: string): Promise<void>;
  subscribe(listener: (payload: string) => void): () => void;
  close(): Promise<void>;
}

export function createChangeNotifier(handle: DbHandle, channelSuffix = ''): ChangeNotifier {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  if (handle.dialect !== 'postgres' || !handle.pgPool) {
    return {
      async publish(_trx, payload) {
        setImmediate(() => emitter.emit('change', payload));
      },
      subscribe(listener) {
        emitter.on('change', listener);
        return () => emitter.off('change', listener);
      },
      async close() {
        emitter.removeAllListeners();
      },
    };
  }

  const channel = `ensign_config${channelSuffix ? '_' + channelSuffix.replace(/[^a-z0-9_]/gi, '') : ''}`;
  const pool = handle.pgPool;
  let client: pg.PoolClient | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  async function listen() {
    if (closed || client) return;
    let c: pg.PoolClient | null = null;
    try {
      c = await pool.connect();
      if (closed || client) {
        // Closed while connecting (or another attempt got there first): give the connection back,
        // or the pool could never end.
        discard(c);
        return;
      }
      // Held from now on, so a close() during LISTEN still releases it.
      client = c;
      const own = c;
      c.on('notification', (msg) => {
        if (msg.channel === channel && msg.payload !== undefined) emitter.emit('change', msg.payload);
      });
      c.on('error', () => reconnect(own));
      await c.query(`LISTEN ${channel}`);
      // Anything published while we were disconnected is picked up by the readers' polling fallback.
      emitter.emit('reconnected');
    } catch {
      if (c) reconnect(c);
      else scheduleRetry();
    }
  }

  /**
   * A LISTEN connection failed: it is discarded, and only the current one's loss starts a new
   * attempt (one connection can report its loss twice, the failed query and the 'error' event;
   * two attempts would leave one connection checked out for good and the pool unable to end).
   */
  function reconnect(c: pg.PoolClient) {
    discard(c);
    if (client !== c && client !== null) return;
    if (client === c) client = null;
    scheduleRetry();
  }

  function scheduleRetry() {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void listen();
    }, 500);
    retry.unref();
  }

  void listen();

  return {
    async publish(trx, payload) {
      await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
    },
    subscribe(listener) {
      emitter.on('change', listener);
      return () => emitter.off('change', listener);
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      emitter.removeAllListeners();
      const c = client;
      client = null;
      // Destroyed, not UNLISTENed and returned: closing goes with the pool's end, and a query here
      // would queue behind a LISTEN still in flight on a connection that may never answer again
      // (seen: a close during a reconnect held the pool, and the process, open for good).
      if (c) discard(c);
    },
  };
}

/** Gives a LISTEN connection back to the pool to be closed; a second release (an error after close) is a no-op. */
function discard(c: pg.PoolClient) {
  try {
    c.release(true);
  } catch {
    /* already released */
  }
}

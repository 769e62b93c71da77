// Opens the database named by a URL: sqlite://<path> (embedded default, WAL) or postgres://…
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase } from 'kysely';
import type pg from 'pg';
import type { Database } from './database.js';
import { ARRAY_ROWS_MARK } from './array-rows.js';
import { dialectOfUrl, type DialectName } from './dialect.js';
import { stallTolerant } from './stall-tolerant-pool.js';

const require = createRequire(import.meta.url);
let postgresDriver: typeof pg | undefined;

/** pg, required the first time a PostgreSQL database is opened: a SQLite process never loads it (decision 0057). */
function postgres(): typeof pg {
  if (postgresDriver !== undefined) return postgresDriver;
  const driver = require('pg') as typeof pg;
  // COUNT(*) and BIGINT come back from pg as strings; our counters fit comfortably in a double.
  driver.types.setTypeParser(20, (v) => Number(v));
  return (postgresDriver = driver);
}

export interface DbHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The PostgreSQL pool, for LISTEN/NOTIFY; null on SQLite. */
  pgPool: pg.Pool | null;
  /** The SQLite database file (another thread may open its own connection to it); null on
   * PostgreSQL and for an in-memory database. */
  sqliteFile: string | null;
  /** What the operator can watch of the database (the metrics at /metrics). */
  stats(): DatabaseStats;
  /**
   * Hears a lost database connection (a terminated backend, a failover, a restart). The pool drops
   * the connection and opens a new one for the next query, so the process carries on.
   */
  onConnectionError(listener: (err: Error) => void): () => void;
  close(): Promise<void>;
}

/** PostgreSQL: the pool's connections. SQLite (one connection, in process): the database's size. */
export interface DatabaseStats {
  pool?: { max: number; total: number; idle: number; waiting: number };
  sizeBytes?: number;
}

export interface CreateDbOptions {
  /** PostgreSQL schema to use as search_path (tests isolate themselves this way). */
  pgSchema?: string;
  poolSize?: number;
  /** PostgreSQL `application_name` of every connection (operators and tests find the backends by it). */
  applicationName?: string;
}

function sqlitePath(url: string): string {
  return decodeURIComponent(url.replace(/^sqlite:\/\//, ''));
}

export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const dialect = dialectOfUrl(url);
  if (dialect === 'postgres') {
    const pool = new (postgres().Pool)({
      connectionString: url,
      max: options.poolSize ?? 10,
      application_name: options.applicationName ?? 'ensign',
      // While the database is unreachable a query fails after this instead of waiting forever (a
      // timeout that ran out across a stall of this process is tried again: stall-tolerant-pool.ts).
      connectionTimeoutMillis: 5000,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    });
    const errors = new EventEmitter();
    const report = (err: Error) => {
      if (errors.listenerCount('error') > 0) errors.emit('error', err);
    };
    // A client that loses its backend emits 'error'; with no listener that kills the process. Every
    // client gets one for its whole life (checked out or idle), so nothing is ever unhandled; the
    // pool's own 'error' (an idle client's, already heard here) only needs a listener to exist.
    pool.on('connect', (client) => client.on('error', report));
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: stallTolerant(pool) }) });
    const max = options.poolSize ?? 10;
    const stats = () => ({ pool: { max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } });
    return {
      db,
      dialect,
      pgPool: pool,
      sqliteFile: null,
      stats,
      onConnectionError: subscribe(errors),
      close: () => db.destroy(),
    };
  }
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Checkpoint every ~40 MB of log instead of SQLite's ~4 MB: ingestion rewrites the same rollup
  // pages many times a second, and each checkpoint copies a page once however often it changed
  // (measured: ingestion's group transactions 14 % faster).
  sqlite.pragma('wal_autocheckpoint = 10000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  const stats = () => {
    // Pages in use times their size: the main file's size, the write-ahead log aside.
    if (!sqlite.open) return {};
    const pages = sqlite.pragma('page_count', { simple: true }) as number;
    return { sizeBytes: pages * (sqlite.pragma('page_size', { simple: true }) as number) };
  };
  return {
    db,
    dialect,
    pgPool: null,
    sqliteFile: path === ':memory:' ? null : path,
    stats,
    onConnectionError: subscribe(new EventEmitter()),
    close: () => db.destroy(),
  };
}

/** Statements kept compiled per SQL text; ingestion's multi-row inserts repeat a few shapes. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew; compiling a 100-row insert costs more than
 * running it. better-sqlite3 statements are reusable (each run or read completes synchronously, so
 * two queries never share one mid-way) and SQLite recompiles them itself after a schema change.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      // Transactions take the write lock when they begin: with a second connection writing (the
      // telemetry writer thread), a deferred transaction that read first could not upgrade and
      // would fail at once; an immediate one waits for the lock (busy_timeout) like any writer.
      const sql = text === 'begin' ? 'begin immediate' : text;
      let statement = cache.get(sql);
      if (!statement) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        statement = sqlite.prepare(sql);
        // A read marked by array-rows.ts returns its rows as arrays (decision 0071).
        if (sql.startsWith(ARRAY_ROWS_MARK)) statement.raw(true);
        cache.set(sql, statement);
      }
      return statement;
    },
  } as SqliteDatabase;
}

function subscribe(errors: EventEmitter) {
  return (listener: (err: Error) => void) => {
    errors.on('error', listener);
    return () => void errors.off('error', listener);
  };
}

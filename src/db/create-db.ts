// Opens the database named by a URL: sqlite://<path> (embedded default, WAL) or postgres://…
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { dialectOfUrl, type DialectName } from './dialect.js';

// COUNT(*) and BIGINT come back from pg as strings; our counters fit comfortably in a double.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DbHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The PostgreSQL pool, for LISTEN/NOTIFY; null on SQLite. */
  pgPool: pg.Pool | null;
  /** What the operator can watch of the database (the metrics at /metrics). */
  stats(): DatabaseStats;
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
}

function sqlitePath(url: string): string {
  return decodeURIComponent(url.replace(/^sqlite:\/\//, ''));
}

export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const dialect = dialectOfUrl(url);
  if (dialect === 'postgres') {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const max = options.poolSize ?? 10;
    const stats = () => ({ pool: { max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } });
    return { db, dialect, pgPool: pool, stats, close: () => db.destroy() };
  }
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const stats = () => {
    // Pages in use times their size: the main file's size, the write-ahead log aside.
    if (!sqlite.open) return {};
    const pages = sqlite.pragma('page_count', { simple: true }) as number;
    return { sizeBytes: pages * (sqlite.pragma('page_size', { simple: true }) as number) };
  };
  return { db, dialect, pgPool: null, stats, close: () => db.destroy() };
}

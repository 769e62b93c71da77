// buildTestApp({ dialect }) → a migrated database and an app, closed with t.after. On PostgreSQL each
// test app gets its own database, so test files run in parallel without seeing each other's rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import {
  DEFAULT_HTTP_SETTINGS,
  DEFAULT_INSIGHTS_QUERIES_PER_MINUTE,
  DEFAULT_TELEMETRY_WRITE_LANES,
  DEFAULT_TELEMETRY_EVENTS_PER_SECOND,
  PLANS,
  type EnsignConfig,
} from '../../src/config.js';
import { createDb, type DbHandle } from '../../src/db/create-db.js';
import type { DialectName } from '../../src/db/dialect.js';
import { watchDeclaredErrors } from './declared-errors.js';
import { acquirePostgresDatabase, dropIdleDatabases } from './database-pool.js';
import { copySqliteTemplate } from './template-databases.js';

export const POSTGRES_URL = process.env.ENSIGN_TEST_POSTGRES_URL;
export const dialects: DialectName[] = ['sqlite', ...(POSTGRES_URL ? (['postgres'] as const) : [])];

// The databases this process kept for its next tests (database-pool.ts) are dropped after its last.
if (POSTGRES_URL) after(() => dropIdleDatabases(POSTGRES_URL));

export interface TestContext {
  after(fn: () => unknown): void;
}

export interface TestDatabase {
  url: string;
  handle: DbHandle;
  pgSchema?: string;
  /** Opens another handle on the same database (a second process would). */
  open(): DbHandle;
  drop(): Promise<void>;
}

/**
 * A new migrated database: on PostgreSQL a database of its own, copied from a migrated template (or
 * one an earlier test of this process used, emptied: database-pool.ts), whose one schema is named
 * like it (so `pgSchema` also names its notification channel and the connections' application_name);
 * on SQLite a copy of a migrated file in a directory of its own. `drop` ends it for the test.
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'postgres') {
    if (!POSTGRES_URL) throw new Error('ENSIGN_TEST_POSTGRES_URL is not set');
    const { name: pgSchema, url, release: drop } = await acquirePostgresDatabase(POSTGRES_URL);
    const open = () => createDb(url, { pgSchema, poolSize: 5, applicationName: pgSchema });
    return { url, handle: await opened(open), pgSchema, open, drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'ensign-test-'));
  const path = join(dir, 'ensign.db');
  const drop = async () => rmSync(dir, { recursive: true, force: true });
  try {
    await copySqliteTemplate(path);
  } catch (err) {
    await drop();
    throw err;
  }
  const url = `sqlite://${path}`;
  const open = () => createDb(url);
  return { url, handle: await opened(open), open, drop };
}

/** A new migrated database (createTestDatabase) whose handle is closed and which is dropped when the test ends. */
export async function testDatabase(t: TestContext, dialect: DialectName): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  t.after(async () => {
    await database.handle.close();
    await database.drop();
  });
  return database;
}

/**
 * A handle that has been used once: Kysely connects on the first query, and closing a handle that
 * never connected does nothing (a later query would connect again), so a test that closes it to
 * take the database away needs it connected first, as the migration used to leave it.
 */
async function opened(open: () => DbHandle): Promise<DbHandle> {
  const handle = open();
  await sql`select 1`.execute(handle.db);
  return handle;
}

/** scrypt with N = 16: the same code path as production's cost, a thousandth of its CPU. */
export const TEST_PASSWORD_SCRYPT_COST = 4;

export function testConfig(overrides: Partial<EnsignConfig> = {}): EnsignConfig {
  const quotas = { configSyncs: 1000, apps: 10, flags: 500 };
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir: tmpdir(),
    databaseUrl: 'sqlite://:memory:',
    secret: 'test-secret-test-secret-test-secret-0123',
    logLevel: 'silent',
    defaultPlan: 'free',
    // Sign-ups at the production cost (2^14) take ~40 ms of CPU each, and the tests sign up about a
    // thousand users; the hashing itself is tested at the default cost in passwords.test.ts.
    passwordScryptCost: TEST_PASSWORD_SCRYPT_COST,
    quotas: Object.fromEntries(PLANS.map((p) => [p, { ...quotas }])) as EnsignConfig['quotas'],
    jobs: { concurrency: 2, pollIntervalMs: 1000 },
    telemetryEventsPerSecond: DEFAULT_TELEMETRY_EVENTS_PER_SECOND,
    insightsQueriesPerMinute: DEFAULT_INSIGHTS_QUERIES_PER_MINUTE,
    telemetryWriteLanes: DEFAULT_TELEMETRY_WRITE_LANES,
    exportPolicy: { allowedHosts: [], allowPrivateNetworks: false, resolve: {} },
    http: DEFAULT_HTTP_SETTINGS,
    ...overrides,
  };
}

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  logs: () => string;
}

export interface TestAppOptions {
  dialect: DialectName;
  config?: Partial<EnsignConfig>;
  captureLogs?: boolean;
  /** The app's clock (idempotency retention and replay window, the sync meter's month). */
  now?: () => number;
  /** Registers extra routes before the app is made ready (e.g. a route that throws). */
  routes?: (app: FastifyInstance, database: TestDatabase) => void;
  /** The built console to serve at /console (default: console/dist, when built); null: none. */
  consoleDir?: string | null;
}

export async function buildTestApp(t: TestContext, options: TestAppOptions): Promise<TestApp> {
  const database = await createTestDatabase(options.dialect);
  const stream = new PassThrough();
  let captured = '';
  stream.on('data', (chunk) => (captured += chunk.toString()));
  const config = testConfig({ ...(options.captureLogs ? { logLevel: 'trace' } : {}), ...options.config });
  const app = await buildApp({
    db: database.handle.db,
    dbHandle: database.handle,
    notifyChannel: database.pgSchema,
    config,
    logStream: options.captureLogs ? stream : undefined,
    now: options.now,
    consoleDir: options.consoleDir,
  });
  options.routes?.(app, database);
  const undeclaredErrors = watchDeclaredErrors(app);
  try {
    await app.ready();
  } catch (err) {
    // An app that refuses to start (a test may expect it) leaves no pool or schema behind.
    await app.close().catch(() => undefined);
    await database.handle.close().catch(() => undefined);
    await database.drop().catch(() => undefined);
    throw err;
  }
  t.after(async () => {
    await app.close();
    await database.handle.close();
    await database.drop();
    const undeclared = undeclaredErrors();
    if (undeclared.length > 0)
      throw new Error(
        `routes answered codes their schemas do not list (add them to errorResponses):\n${undeclared.join('\n')}`,
      );
  });
  return { app, database, logs: () => captured };
}

/**
 * One app and database for a whole suite (the `describe` this is called in), built before its first
 * test and closed after its last: for suites whose tests each make their own user and app (signUp,
 * userWithApp, the fixtures), so no test reads what another wrote. A test that needs other options,
 * closes its app or reads a whole table still builds its own with buildTestApp.
 */
export function suiteTestApp(options: TestAppOptions): () => TestApp {
  let built: TestApp | undefined;
  const cleanups: (() => unknown)[] = [];
  before(async () => {
    built = await buildTestApp({ after: (fn) => cleanups.push(fn) }, options);
  });
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });
  return () => {
    if (!built) throw new Error("the suite's app is built before its first test");
    return built;
  };
}

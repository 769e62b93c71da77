// The test databases a process uses again (database-pool.ts) must be indistinguishable from fresh
// copies of the template: no row of the last test, the migrator's rows kept, partitions its clock
// made gone, a new name, and the old name reaching nothing; one whose structure a test changed is
// dropped, never handed out.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { createDb } from '../../src/db/create-db.js';
import { acquirePostgresDatabase, dropIdleDatabases } from './database-pool.js';
import { withClient } from './template-databases.js';
import { createApp, signUp } from './fixtures.js';
import { testConfig } from './test-app.js';

const POSTGRES_URL = process.env.ENSIGN_TEST_POSTGRES_URL;
// The pool keeps databases only within a run (scripts/run-tests.mjs gives it an id); a file run on its
// own gets one here, so its databases are prefixed like a run's.
process.env.ENSIGN_TEST_RUN_ID ??= 'f11e0000';

const query = <T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) =>
  withClient(url, async (client) => (await client.query<T>(text, values)).rows);

/** Every table's row count but the migrator's. */
async function rowCounts(url: string, schema: string): Promise<[string, number][]> {
  const tables = await query<{ relname: string }>(
    url,
    `SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind = 'r' AND relname NOT LIKE 'kysely%' ORDER BY relname`,
    [schema],
  );
  const counts: [string, number][] = [];
  for (const { relname } of tables) {
    const [{ n }] = await query<{ n: string }>(url, `SELECT count(*) AS n FROM ${schema}.${relname}`);
    counts.push([relname, Number(n)]);
  }
  return counts;
}

const exists = async (name: string) =>
  (await query(POSTGRES_URL!, 'SELECT 1 FROM pg_database WHERE datname = $1', [name])).length === 1;

describe('test databases used again', { skip: !POSTGRES_URL && 'PostgreSQL only' }, () => {
  after(() => dropIdleDatabases(POSTGRES_URL!));

  test('a released database comes back renamed, with its migrations and without the partitions made', async () => {
    const first = await acquirePostgresDatabase(POSTGRES_URL!);
    const s = first.name;
    const [{ n: migrations }] = await query<{ n: string }>(
      first.url,
      `SELECT count(*) AS n FROM ${s}.kysely_migration`,
    );
    await query(
      first.url,
      `CREATE TABLE ${s}.telemetry_events_d20990101 PARTITION OF ${s}.telemetry_events FOR VALUES FROM (4070908800000) TO (4070995200000)`,
    );
    // A session the test left open (a child process's pool) is ended, and cannot come back.
    const lingering = new pg.Client({ connectionString: first.url });
    await lingering.connect();
    lingering.on('error', () => undefined);
    await first.release();
    await lingering.end().catch(() => undefined);

    const second = await acquirePostgresDatabase(POSTGRES_URL!);
    assert.equal(second.reused, true);
    assert.notEqual(second.name, first.name);
    assert.equal(await exists(first.name), false, 'the old name reaches nothing');
    assert.equal(await exists(second.name), true);
    const t = second.name;
    const schemas = await query<{ nspname: string }>(
      second.url,
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%' ORDER BY nspname`,
    );
    assert.deepEqual(
      schemas.map((r) => r.nspname),
      [t],
      'its schema carries the new name',
    );
    const [{ n }] = await query<{ n: string }>(second.url, `SELECT count(*) AS n FROM ${t}.kysely_migration`);
    assert.equal(n, migrations);
    const partitions = await query<{ relname: string }>(
      second.url,
      `SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relispartition AND relkind = 'r'`,
      [t],
    );
    assert.deepEqual(
      partitions.map((p) => p.relname),
      ['telemetry_events_default'],
    );
    await second.release();
  });

  test('a database whose structure its test changed is dropped, not used again', async () => {
    const changed = await acquirePostgresDatabase(POSTGRES_URL!);
    // Its OID outlives the renames a release makes.
    const [{ oid }] = await query<{ oid: string }>(
      changed.url,
      'SELECT oid FROM pg_database WHERE datname = current_database()',
    );
    await query(changed.url, `CREATE TABLE ${changed.name}.counter (n integer NOT NULL)`);
    await changed.release();
    assert.deepEqual(await query(POSTGRES_URL!, 'SELECT datname FROM pg_database WHERE oid = $1', [oid]), []);
  });

  test('every row an app wrote is gone, also the journal’s (append-only) and rows other rows refer to', async () => {
    const db = await acquirePostgresDatabase(POSTGRES_URL!);
    const handle = createDb(db.url, { pgSchema: db.name, poolSize: 5, applicationName: db.name });
    const app = await buildApp({ db: handle.db, dbHandle: handle, notifyChannel: db.name, config: testConfig() });
    const user = await signUp(app);
    await createApp(app, user.token);
    await app.close();
    await handle.close();
    assert.ok(
      (await rowCounts(db.url, db.name)).some(([, n]) => n > 0),
      'the app wrote rows',
    );
    await db.release();
    const again = await acquirePostgresDatabase(POSTGRES_URL!);
    assert.equal(again.reused, true);
    assert.deepEqual(
      (await rowCounts(again.url, again.name)).filter(([, n]) => n > 0),
      [],
    );
    await again.release();
  });
});

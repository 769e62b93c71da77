// PostgreSQL test databases used again instead of dropped: each test's database is a copy of the
// migrated template (template-databases.ts), and creating one and dropping it cost PostgreSQL about
// 0.35 s of CPU, most of it the kernel allocating and freeing its ~500 files (ext4's inode search
// after many deletes), plus a checkpoint per drop. In `npm test` (scripts/run-tests.mjs sets
// ENSIGN_TEST_RUN_ID) a database a test has finished with is emptied and kept for the process's next
// test instead: renamed (a process still holding its old URL can no longer reach it, as after a
// drop), every row deleted, its schema renamed, so the next test gets a database indistinguishable
// from a fresh copy under a name never used before. One whose structure a test changed (a table
// created or dropped, a trigger added) is dropped as before. Each process drops the databases it kept
// when its tests end; run-tests.mjs drops any a crashed process left behind, by the run's prefix.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { copyPostgresTemplate, dropPostgresDatabase, withClient, withDatabase } from './template-databases.js';

/** The run's id, the prefix of the databases it may keep (only ever hex: names go into DDL). */
function runId(): string | undefined {
  const id = process.env.ENSIGN_TEST_RUN_ID ?? '';
  return /^[0-9a-f]{4,16}$/.test(id) ? id : undefined;
}

/** A name never used before, which is also the database's schema (and notification channel). */
function freshName(): string {
  const id = runId();
  return `${id ? `t_${id}_` : 't_'}${randomBytes(6).toString('hex')}`;
}

export interface PooledDatabase {
  name: string;
  url: string;
  /** An earlier test's, emptied (else a new copy of the template). */
  reused: boolean;
  /** Empties the database for another test of this process, or drops it. */
  release(): Promise<void>;
}

const idle: string[] = [];
/** The structure of a fresh copy (see fingerprint), taken from the first one this process makes. */
let freshShape: Promise<Shape> | undefined;

export async function acquirePostgresDatabase(serverUrl: string): Promise<PooledDatabase> {
  let name = idle.pop();
  const reused = name !== undefined;
  if (name === undefined) {
    name = freshName();
    await copyPostgresTemplate(serverUrl, name);
    if (runId() && !freshShape) {
      const copied = name;
      freshShape = withClient(withDatabase(serverUrl, copied), (c) => shapeOf(c, copied));
      // Without a shape to compare with, nothing is kept: every database is dropped, as without a pool.
      await freshShape.catch((err: unknown) => {
        console.warn(`test databases are not reused in this process: ${err instanceof Error ? err.message : err}`);
        freshShape = undefined;
      });
    }
  }
  const current = name;
  return {
    name: current,
    url: withDatabase(serverUrl, current),
    reused,
    release: () => release(serverUrl, current),
  };
}

async function release(serverUrl: string, name: string): Promise<void> {
  if (!runId() || !freshShape) return dropPostgresDatabase(serverUrl, name);
  let current = name;
  try {
    const next = freshName();
    await renameAway(serverUrl, current, next);
    current = next;
    const expected = await freshShape;
    await withClient(withDatabase(serverUrl, current), (c) => empty(c, name, next, expected));
    idle.push(current);
  } catch {
    // Changed by its test, or not ours to empty (a role without superuser): dropped, as without a pool.
    await dropPostgresDatabase(serverUrl, current);
  }
}

/** Drops every database this process kept: its tests are over. */
export async function dropIdleDatabases(serverUrl: string): Promise<void> {
  for (const name of idle.splice(0)) await dropPostgresDatabase(serverUrl, name);
}

/**
 * Renames the database, after ending every session still in it (a test's child process, a handle
 * it did not close): a rename needs the database to itself, and the old name then reaches nothing.
 * A session may reconnect between the two; the rename is tried again for up to about two seconds.
 */
async function renameAway(serverUrl: string, from: string, to: string): Promise<void> {
  await withClient(serverUrl, async (admin) => {
    for (let attempt = 0; ; attempt++) {
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [from],
      );
      try {
        await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(from)} RENAME TO ${admin.escapeIdentifier(to)}`);
        return;
      } catch (err) {
        // 55006 object_in_use: a terminated session has not yet gone.
        if ((err as { code?: string }).code !== '55006' || attempt >= 100) throw err;
        await sleep(20);
      }
    }
  });
}

interface Shape {
  /** The partitions a fresh copy has (those a test's clock made are dropped). */
  partitions: string[];
  fingerprint: string;
}

/**
 * Everything about a database's structure a test could change, as one string with its schema's name
 * taken out: every user schema's relations with their columns, constraints, indexes, triggers and
 * functions, the database's own settings, and the migrator's rows.
 */
async function shapeOf(c: pg.Client, schema: string): Promise<Shape> {
  const { rows } = await c.query<{ part: string }>(
    `WITH spaces AS (
       SELECT oid, nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
     )
     SELECT 'namespace ' || nspname AS part FROM spaces
     UNION ALL
     SELECT 'relation ' || s.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || c.relispartition::text || ' ' ||
            coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull
                                        || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum)
                        FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                       WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') || ' ' ||
            coalesce(pg_get_indexdef(c.oid), '') || ' ' || coalesce(pg_get_expr(c.relpartbound, c.oid), '')
       FROM pg_class c JOIN spaces s ON s.oid = c.relnamespace
     UNION ALL
     SELECT 'constraint ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
       FROM pg_constraint c JOIN spaces s ON s.oid = c.connamespace
     UNION ALL
     SELECT 'trigger ' || t.tgname || ' ' || t.tgenabled::text || ' ' || pg_get_triggerdef(t.oid)
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN spaces s ON s.oid = c.relnamespace
     UNION ALL
     SELECT 'function ' || s.nspname || '.' || p.proname || ' ' || md5(p.prosrc)
       FROM pg_proc p JOIN spaces s ON s.oid = p.pronamespace
     UNION ALL
     SELECT 'setting ' || array_to_string(setconfig, ' ')
       FROM pg_db_role_setting WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
     UNION ALL
     SELECT 'migrations ' || (SELECT count(*) FROM ${c.escapeIdentifier(schema)}.kysely_migration) || ' ' ||
            (SELECT count(*) FROM ${c.escapeIdentifier(schema)}.kysely_migration_lock)`,
  );
  const { rows: partitions } = await c.query<{ relname: string }>(
    `SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relispartition AND relkind IN ('r', 'p')`,
    [schema],
  );
  return {
    partitions: partitions.map((p) => p.relname).sort(),
    fingerprint: rows
      .map((r) => r.part.split(schema).join('<schema>'))
      .sort()
      .join('\n'),
  };
}

/**
 * Brings a database a test has used back to a fresh copy's state under schema `next`: the partitions
 * its clock created dropped, its structure checked against a fresh copy's (throws if it differs),
 * every row deleted (the migrator's kept) with triggers and foreign keys off, sequences restarted.
 */
async function empty(c: pg.Client, schema: string, next: string, expected: Shape): Promise<void> {
  const id = (name: string) => `${c.escapeIdentifier(schema)}.${c.escapeIdentifier(name)}`;
  const { rows: made } = await c.query<{ relname: string }>(
    `SELECT relname FROM pg_class
      WHERE relnamespace = $1::regnamespace AND relispartition AND relkind IN ('r', 'p') AND NOT relname = ANY($2)`,
    [schema, expected.partitions],
  );
  for (const { relname } of made) await c.query(`DROP TABLE ${id(relname)}`);
  const shape = await shapeOf(c, schema);
  if (shape.fingerprint !== expected.fingerprint) throw new Error('the test changed the database’s structure');
  const { rows: tables } = await c.query<{ relname: string }>(
    `SELECT relname FROM pg_class
      WHERE relnamespace = $1::regnamespace AND relkind = 'r' AND relname NOT IN ('kysely_migration', 'kysely_migration_lock')`,
    [schema],
  );
  await c.query('BEGIN');
  // Replica mode: no trigger fires (the journal refuses deletes) and no foreign key is checked.
  await c.query('SET LOCAL session_replication_role = replica');
  await c.query(tables.map((t) => `DELETE FROM ${id(t.relname)};`).join('\n'));
  await c.query(
    `SELECT setval(c.oid, s.seqstart, false) FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid
      WHERE c.relnamespace = $1::regnamespace`,
    [schema],
  );
  await c.query(`ALTER SCHEMA ${c.escapeIdentifier(schema)} RENAME TO ${c.escapeIdentifier(next)}`);
  await c.query('COMMIT');
}

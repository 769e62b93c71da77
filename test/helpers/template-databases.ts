// Migrated databases to copy from: migrating a new test database costs ~0.5–1 s of PostgreSQL work
// (and tens of ms on SQLite), copying a migrated one a few ms. The template is named by a digest of
// the migrations, so a changed migration builds a new one; several test processes (and several
// checkouts sharing one PostgreSQL) agree on it without building it twice.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createDb } from '../../src/db/create-db.js';
import { migrateToLatest } from '../../src/db/migrate.js';

const DB_DIR = resolve(import.meta.dirname, '../../src/db');

/** What the migrated schema depends on: the migrator, the dialect helper and every migration. */
function migrationsDigest(): string {
  const hash = createHash('sha256');
  const files = [
    'migrate.ts',
    'dialect.ts',
    ...readdirSync(join(DB_DIR, 'migrations'))
      .sort()
      .map((f) => join('migrations', f)),
  ];
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(join(DB_DIR, f)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

let digest: string | undefined;
const digestOnce = () => (digest ??= migrationsDigest());

/** A database URL with another database name (the test server's, a template's, a test's). */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One connection to `url` for `fn`, closed after it. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const TEMPLATE_SCHEMA = 'template_schema';
let template: Promise<string> | undefined;

/**
 * The migrated PostgreSQL template database (built once, under an advisory lock, by whichever
 * process asks first): its tables live in schema `template_schema`, which a copy renames.
 */
function postgresTemplate(url: string): Promise<string> {
  return (template ??= withClient(url, async (admin) => {
    const name = `ensign_template_${digestOnce()}`;
    await admin.query(`SELECT pg_advisory_lock(hashtext('ensign test template'))`);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount) return name;
      const building = `${name}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${building}`);
      const buildUrl = withDatabase(url, building);
      await withClient(buildUrl, (c) => c.query(`CREATE SCHEMA ${TEMPLATE_SCHEMA}`));
      const handle = createDb(buildUrl, { pgSchema: TEMPLATE_SCHEMA, poolSize: 2, applicationName: building });
      try {
        await migrateToLatest(handle.db);
      } finally {
        await handle.close();
      }
      // Renamed only when complete, so a process that died half-way leaves no template behind.
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      return name;
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(hashtext('ensign test template'))`);
    }
  }).catch((err) => {
    template = undefined;
    throw err;
  }));
}

/**
 * A new PostgreSQL database, migrated (a copy of the template), whose schema is named `name`. From
 * PostgreSQL 15 the copy is WAL-logged block by block (tens of ms for this small template); older
 * servers copy files after a checkpoint, slower but still cheaper than migrating.
 */
export async function copyPostgresTemplate(url: string, name: string): Promise<string> {
  const source = await postgresTemplate(url);
  await withClient(url, (admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE ${source}`));
  const copyUrl = withDatabase(url, name);
  await withClient(copyUrl, (c) => c.query(`ALTER SCHEMA ${TEMPLATE_SCHEMA} RENAME TO ${name}`));
  return copyUrl;
}

export async function dropPostgresDatabase(url: string, name: string): Promise<void> {
  await withClient(url, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

let sqliteTemplate: Promise<string> | undefined;

/** The migrated SQLite template file (built once per digest; a rename makes it appear whole). */
function sqliteTemplateFile(): Promise<string> {
  return (sqliteTemplate ??= (async () => {
    const file = join(tmpdir(), `ensign-test-template-${digestOnce()}.db`);
    if (existsSync(file)) return file;
    const building = `${file}.${randomBytes(4).toString('hex')}`;
    const handle = createDb(`sqlite://${building}`);
    try {
      await migrateToLatest(handle.db);
    } finally {
      // Closing checkpoints the WAL into the file: the file alone is the database.
      await handle.close();
    }
    renameSync(building, file);
    rmSync(`${building}-wal`, { force: true });
    rmSync(`${building}-shm`, { force: true });
    return file;
  })().catch((err) => {
    sqliteTemplate = undefined;
    throw err;
  }));
}

/** Copies the migrated SQLite template to `path`. */
export async function copySqliteTemplate(path: string): Promise<void> {
  copyFileSync(await sqliteTemplateFile(), path);
}

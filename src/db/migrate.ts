// Runs the migrations that build both databases; called at start and by `ensign migrate`.
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from './dialect.js';
import * as foundation from './migrations/0001-foundation.js';
import * as configVersions from './migrations/0002-config-versions.js';
import * as syncMetering from './migrations/0003-sync-metering.js';

const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-config-versions': configVersions,
  '0003-sync-metering': syncMetering,
};

/**
 * Kysely looks for its bookkeeping tables in every schema it can see unless told which one: on
 * PostgreSQL name the connection's own schema, so another schema's tables (another app on the same
 * database, a parallel test run) are never taken for ours.
 */
async function migrationSchemaOf(db: Kysely<any>): Promise<string | undefined> {
  if (dialectOf(db) !== 'postgres') return undefined;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrationTableSchema = await migrationSchemaOf(db);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

// Runs the migrations that build both databases; called at start and by `ensign migrate`.
import { Migrator, type Kysely, type Migration } from 'kysely';
import * as foundation from './migrations/0001-foundation.js';
import * as configVersions from './migrations/0002-config-versions.js';
import * as syncMetering from './migrations/0003-sync-metering.js';

const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-config-versions': configVersions,
  '0003-sync-metering': syncMetering,
};

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

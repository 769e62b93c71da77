// Runs the migrations that build both databases; called at start and by `ensign migrate`.
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from './dialect.js';
import { retryDelayMs } from '../jobs/backoff.js';
import * as foundation from './migrations/0001-foundation.js';
import * as configVersions from './migrations/0002-config-versions.js';
import * as syncMetering from './migrations/0003-sync-metering.js';
import * as loginThrottle from './migrations/0004-login-throttle.js';
import * as appMembers from './migrations/0010-app-members.js';
import * as authority from './migrations/0011-authority.js';
import * as telemetry from './migrations/0020-telemetry.js';
import * as experimentation from './migrations/0030-experimentation.js';
import * as jobs from './migrations/0050-jobs.js';
import * as exportDestinations from './migrations/0060-exports.js';
import * as subjectErasure from './migrations/0061-subject-erasure.js';
import * as experimentBaselines from './migrations/0070-experiment-baselines.js';
import * as aggregationRuns from './migrations/0080-experiment-aggregation-runs.js';
import * as rolloutPlans from './migrations/0090-rollout-plans.js';
import * as exportBackfills from './migrations/0100-export-backfills.js';
import * as tombstoneLifetime from './migrations/0110-erasure-tombstones-30-days.js';
import * as appInvitations from './migrations/0111-app-invitations.js';
import * as finiteNumbers from './migrations/0130-finite-numbers.js';
import * as eventsKeyedById from './migrations/0150-events-keyed-by-id.js';
import * as writerSlots from './migrations/0151-writer-slots.js';
import * as exportCommitOrder from './migrations/0152-export-commit-order.js';
import * as deliveryClaims from './migrations/0153-delivery-claims.js';
import * as secretFingerprint from './migrations/0154-secret-fingerprint.js';
import * as deliveriesDueIndex from './migrations/0155-deliveries-due-index.js';
import * as eventKeysBrin from './migrations/0156-event-keys-brin.js';

const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-config-versions': configVersions,
  '0003-sync-metering': syncMetering,
  '0004-login-throttle': loginThrottle,
  '0010-app-members': appMembers,
  '0011-authority': authority,
  '0020-telemetry': telemetry,
  '0030-experimentation': experimentation,
  '0050-jobs': jobs,
  '0060-exports': exportDestinations,
  '0061-subject-erasure': subjectErasure,
  '0070-experiment-baselines': experimentBaselines,
  '0080-experiment-aggregation-runs': aggregationRuns,
  '0090-rollout-plans': rolloutPlans,
  '0100-export-backfills': exportBackfills,
  '0110-erasure-tombstones-30-days': tombstoneLifetime,
  '0111-app-invitations': appInvitations,
  '0130-finite-numbers': finiteNumbers,
  '0150-events-keyed-by-id': eventsKeyedById,
  '0151-writer-slots': writerSlots,
  '0152-export-commit-order': exportCommitOrder,
  '0153-delivery-claims': deliveryClaims,
  '0154-secret-fingerprint': secretFingerprint,
  '0155-deliveries-due-index': deliveriesDueIndex,
  '0156-event-keys-brin': eventKeysBrin,
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

/**
 * Kysely's check for its bookkeeping tables reads the catalog of every schema; a table dropped in
 * another schema at that moment (another app, a parallel test cleaning up) fails the read with
 * "relation (or schema) does not exist" before any migration has run. Such a failure is retried.
 */
function isCatalogRace(err: unknown): boolean {
  const e = err as { code?: string } | null;
  if (!e) return false;
  // 42P01 undefined table, 3F000 undefined schema, XX000 "cache lookup failed" (dropped mid-read),
  // 42703 undefined column (pg_get_serial_sequence on a column of a table dropped mid-read).
  return (
    e.code === '42P01' ||
    e.code === '3F000' ||
    e.code === '42703' ||
    (e.code === 'XX000' && /cache lookup failed/.test(String((err as Error).message)))
  );
}

/** Another process's migration holds the catalogue for milliseconds. */
const CATALOG_RACE_RETRY = { baseMs: 20, maxMs: 160 };

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(db);
    } catch (err) {
      if (attempt >= 5 || dialectOf(db) !== 'postgres' || !isCatalogRace(err)) throw err;
      await new Promise((r) => setTimeout(r, retryDelayMs(attempt, CATALOG_RACE_RETRY)));
    }
  }
}

/** Runs the migrations up to and including `name` (tests of a migration over data of the schema before it). */
export async function migrateUpTo(db: Kysely<any>, name: string): Promise<void> {
  const migrationTableSchema = await migrationSchemaOf(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

async function migrateOnce(db: Kysely<any>): Promise<string[]> {
  const migrationTableSchema = await migrationSchemaOf(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

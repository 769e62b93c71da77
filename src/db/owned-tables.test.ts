// A repository's executor is typed to its module's tables: the lines marked @ts-expect-error below
// must fail to compile, or `tsc` (npm run typecheck, in npm test) fails on the unused directive.
// At run time the test only checks that the view is the executor itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { ownTables } from './owned-tables.js';

// The modules' own `…Tables` interfaces are these picks (rollouts.table.ts, experiments.table.ts,
// apps.table.ts, keys.table.ts, layers.table.ts, holdouts.table.ts, baselines.table.ts, telemetry.table.ts,
// exports.table.ts); db/ names them through the database type, as it may not import a module's files.
type RolloutsTables = Pick<Database, 'rollout_plans'>;
type ExperimentsTables = Pick<Database, 'experiments' | 'experiment_revisions' | 'experiment_iterations'>;
type AppsTables = Pick<Database, 'apps' | 'environments' | 'app_members' | 'app_invitations'>;
type LayersTables = Pick<Database, 'layers'>;
type HoldoutsTables = Pick<Database, 'holdouts'>;
type BaselinesTables = Pick<Database, 'experiment_baselines'>;
type ExportsTables = Pick<Database, 'export_destinations' | 'export_deliveries'>;
type InsightsView = Pick<Database, never>;
type KeysTables = Pick<Database, 'api_keys'>;

/** Never called: its body is what tsc must accept or reject. */
function queries(db: Kysely<Database>) {
  const rollouts = ownTables<RolloutsTables>()(db);
  rollouts.selectFrom('rollout_plans').select(['id', 'plan_version']);
  // @ts-expect-error rollouts read experiments through the experiments read model, not their table
  rollouts.selectFrom('experiments').selectAll();
  // @ts-expect-error nor may they write another module's table
  rollouts.updateTable('experiment_iterations').set({ state: 'stopped' });
  const experiments = ownTables<ExperimentsTables>()(db);
  experiments.selectFrom('experiment_iterations').select('id');
  // @ts-expect-error experiments do not touch rollout plans
  experiments.deleteFrom('rollout_plans');
  const apps = ownTables<AppsTables>()(db);
  apps.selectFrom('app_members').select('user_id');
  // @ts-expect-error apps read members' addresses through auth's read model (emailsOfUsers), not the users table
  apps.selectFrom('app_members').innerJoin('users', 'users.id', 'app_members.user_id');
  // @ts-expect-error nor do they lock a user's row themselves (lockUser)
  apps.selectFrom('users').select('id');
  const layers = ownTables<LayersTables>()(db);
  layers.updateTable('layers').set({ version: 2 });
  // @ts-expect-error layers and holdouts share a row shape, not a table
  layers.selectFrom('holdouts').selectAll();
  const holdouts = ownTables<HoldoutsTables>()(db);
  // @ts-expect-error holdouts read which experiments name them through the experiments read model
  holdouts.selectFrom('experiments').select('id');
  // @ts-expect-error nor do they write layers
  holdouts.insertInto('layers');
  const baselines = ownTables<BaselinesTables>()(db);
  baselines.selectFrom('experiment_baselines').select('version');
  // @ts-expect-error a telemetry baseline's moments come from telemetry's read model (outcomeMoments)
  baselines.selectFrom('telemetry_events').select('id');
  const exportsView = ownTables<ExportsTables>()(db);
  exportsView.selectFrom('export_destinations').select('position_seq');
  // @ts-expect-error raw exports read events through telemetry's read model (eventsCommittedAfter, eventsAfter, eventsByIds)
  exportsView.selectFrom('telemetry_events').selectAll();
  // @ts-expect-error insights own no table: rollups are read through telemetry's read model (scanRollups)
  ownTables<InsightsView>()(db).selectFrom('telemetry_rollups').selectAll();
  const keys = ownTables<KeysTables>()(db);
  keys.selectFrom('api_keys').select('token_hash');
  // @ts-expect-error a key's environment slug comes from the apps read model (environmentSlugsOf), not a join
  keys.selectFrom('api_keys').leftJoin('environments', 'environments.id', 'api_keys.env_id');
  // @ts-expect-error a module's tables must be the database's: a made-up column does not type
  ownTables<{ experiments: { id: number } }>();
}

test('a module sees the executor through its own tables only (checked by tsc), and the view is the executor', () => {
  assert.equal(typeof queries, 'function');
  const executor = {} as Kysely<Database>;
  assert.equal(ownTables<RolloutsTables>()(executor), executor);
});

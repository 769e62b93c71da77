// A repository's executor is typed to its module's tables: the lines marked @ts-expect-error below
// must fail to compile, or `tsc` (npm run typecheck, in npm test) fails on the unused directive.
// At run time the test only checks that the view is the executor itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { ownTables } from './owned-tables.js';

// The modules' own `…Tables` interfaces are these picks (rollouts.table.ts, experiments.table.ts);
// db/ names them through the database type, as it may not import a module's files.
type RolloutsTables = Pick<Database, 'rollout_plans'>;
type ExperimentsTables = Pick<Database, 'experiments' | 'experiment_revisions' | 'experiment_iterations'>;

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
  // @ts-expect-error a module's tables must be the database's: a made-up column does not type
  ownTables<{ experiments: { id: number } }>();
}

test('a module sees the executor through its own tables only (checked by tsc), and the view is the executor', () => {
  assert.equal(typeof queries, 'function');
  const executor = {} as Kysely<Database>;
  assert.equal(ownTables<RolloutsTables>()(executor), executor);
});

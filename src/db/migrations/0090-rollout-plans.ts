// Rollout plans (issue 12): a guarded, stepwise rollout of one experiment variant on the experiment's
// flag. The plan row carries its CAS version, steps, guardrails, the config version to restore on a
// rollback, the stored recommendation and the history.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rollout_plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('env_id', 'text', (c) => c.notNull())
    .addColumn('experiment_id', 'text', (c) => c.notNull())
    .addColumn('flag_key', 'text', (c) => c.notNull())
    .addColumn('iteration_id', 'text', (c) => c.notNull())
    .addColumn('plan_version', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('steps', 'text', (c) => c.notNull())
    .addColumn('guardrails', 'text', (c) => c.notNull())
    .addColumn('minimum_units_per_step', 'integer')
    .addColumn('current_step', 'integer')
    .addColumn('step_started_at', 'text')
    .addColumn('base_version', 'integer')
    .addColumn('recommendation', 'text')
    .addColumn('history', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rollout_plans_experiment')
    .on('rollout_plans')
    .columns(['env_id', 'experiment_id'])
    .execute();
  await db.schema
    .createIndex('rollout_plans_flag')
    .on('rollout_plans')
    .columns(['env_id', 'flag_key', 'state'])
    .execute();
}

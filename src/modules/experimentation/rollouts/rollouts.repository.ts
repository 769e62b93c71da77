// Kysely queries of rollout plans; rows become plans here and never leave. Only the module's own
// table is visible (db/owned-tables.ts): the experiment a plan rolls out is read through the
// experiments read model.
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { ownTables } from '../../../db/owned-tables.js';
import { forUpdate } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';
import type { PlanState, RolloutPlan } from './rollouts.model.js';
import type { RolloutPlansTable, RolloutsTables } from './rollouts.table.js';

const own = ownTables<RolloutsTables>();

export type PlanRow = RolloutPlansTable;

export function planOf(row: PlanRow, env: string): RolloutPlan {
  return {
    id: row.id, appId: row.app_id, env, experimentId: row.experiment_id, flagKey: row.flag_key, iterationId: row.iteration_id,
    planVersion: Number(row.plan_version), state: row.state as PlanState, variant: row.variant,
    steps: JSON.parse(row.steps), guardrails: JSON.parse(row.guardrails),
    minimumUnitsPerStep: row.minimum_units_per_step === null ? null : Number(row.minimum_units_per_step),
    currentStep: row.current_step === null ? null : Number(row.current_step), stepStartedAt: row.step_started_at,
    baseVersion: row.base_version === null ? null : Number(row.base_version),
    recommendation: row.recommendation === null ? null : JSON.parse(row.recommendation),
    history: JSON.parse(row.history), createdAt: row.created_at, updatedAt: row.updated_at, createdBy: JSON.parse(row.created_by),
  };
}

const planQuery = (executor: Executor, envId: string, experimentId: string, planId: string) =>
  own(executor).selectFrom('rollout_plans').selectAll().where('env_id', '=', envId).where('experiment_id', '=', experimentId).where('id', '=', planId);

export async function findPlan(executor: Executor, envId: string, experimentId: string, planId: string): Promise<PlanRow | undefined> {
  return planQuery(executor, envId, experimentId, planId).executeTakeFirst();
}

/** The plan, locked until the transaction of `trx` ends. */
export async function lockPlan(trx: Executor, envId: string, experimentId: string, planId: string): Promise<PlanRow | undefined> {
  return forUpdate(trx, planQuery(trx, envId, experimentId, planId)).executeTakeFirst();
}

/** The newest 100 plans of an experiment. */
export async function listPlans(executor: Executor, envId: string, experimentId: string): Promise<PlanRow[]> {
  return own(executor).selectFrom('rollout_plans').selectAll().where('env_id', '=', envId).where('experiment_id', '=', experimentId)
    .orderBy('created_at', 'desc').orderBy('id').limit(100).execute();
}

/** Inserts the plan; false when its id is taken. */
export async function insertPlan(trx: Executor, row: PlanRow): Promise<boolean> {
  const taken = await own(trx).selectFrom('rollout_plans').select('id').where('id', '=', row.id).executeTakeFirst();
  if (taken) return false;
  try {
    await own(trx).insertInto('rollout_plans').values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

/** Writes `fields` on the plan if it is still at `expectedVersion`, and reads it back. */
export async function updatePlan(trx: Executor, planId: string, expectedVersion: number, fields: Partial<PlanRow>): Promise<PlanRow> {
  await own(trx).updateTable('rollout_plans').set(fields).where('id', '=', planId).where('plan_version', '=', expectedVersion).execute();
  return own(trx).selectFrom('rollout_plans').selectAll().where('id', '=', planId).executeTakeFirstOrThrow();
}

/** Sets fields without a version check (the caller holds the plan's lock and has just saved it). */
export async function setPlanFields(trx: Executor, planId: string, fields: Partial<PlanRow>): Promise<void> {
  await own(trx).updateTable('rollout_plans').set(fields).where('id', '=', planId).execute();
}

/** The ids of unfinished (draft, active, paused) plans, by flag key. */
export async function unfinishedPlansByFlag(executor: Executor, envId: string): Promise<Map<string, string[]>> {
  const rows = await own(executor).selectFrom('rollout_plans').select(['id', 'flag_key']).where('env_id', '=', envId)
    .where('state', 'in', ['draft', 'active', 'paused']).orderBy('id').execute();
  const byFlag = new Map<string, string[]>();
  for (const r of rows) byFlag.set(r.flag_key, [...(byFlag.get(r.flag_key) ?? []), r.id]);
  return byFlag;
}

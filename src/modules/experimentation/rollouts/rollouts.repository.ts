// Kysely queries of rollout plans; rows become plans here and plans rows, and neither leaves. Only the module's own
// table is visible (db/owned-tables.ts): the experiment a plan rolls out is read through the
// experiments read model.
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { ownTables } from '../../../db/owned-tables.js';
import { forUpdate } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';
import type { PlanState, RolloutPlan } from './rollouts.model.js';
import type { RolloutPlansTable, RolloutsTables } from './rollouts.table.js';

const own = ownTables<RolloutsTables>();

type PlanRow = RolloutPlansTable;

/** Where a plan is: its environment's id (the table's key) and slug (what the plan shows). */
export interface PlanScope {
  envId: string;
  env: string;
}

function planOf(row: PlanRow, env: string): RolloutPlan {
  return {
    id: row.id,
    appId: row.app_id,
    env,
    experimentId: row.experiment_id,
    flagKey: row.flag_key,
    iterationId: row.iteration_id,
    planVersion: Number(row.plan_version),
    state: row.state as PlanState,
    variant: row.variant,
    steps: JSON.parse(row.steps),
    guardrails: JSON.parse(row.guardrails),
    minimumUnitsPerStep: row.minimum_units_per_step === null ? null : Number(row.minimum_units_per_step),
    currentStep: row.current_step === null ? null : Number(row.current_step),
    stepStartedAt: row.step_started_at,
    baseVersion: row.base_version === null ? null : Number(row.base_version),
    recommendation: row.recommendation === null ? null : JSON.parse(row.recommendation),
    history: JSON.parse(row.history),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: JSON.parse(row.created_by),
  };
}

function rowOf(plan: RolloutPlan, envId: string): PlanRow {
  return {
    id: plan.id,
    app_id: plan.appId,
    env_id: envId,
    experiment_id: plan.experimentId,
    flag_key: plan.flagKey,
    iteration_id: plan.iterationId,
    plan_version: plan.planVersion,
    state: plan.state,
    variant: plan.variant,
    steps: JSON.stringify(plan.steps),
    guardrails: JSON.stringify(plan.guardrails),
    minimum_units_per_step: plan.minimumUnitsPerStep,
    current_step: plan.currentStep,
    step_started_at: plan.stepStartedAt,
    base_version: plan.baseVersion,
    recommendation: plan.recommendation === null ? null : JSON.stringify(plan.recommendation),
    history: JSON.stringify(plan.history),
    created_at: plan.createdAt,
    updated_at: plan.updatedAt,
    created_by: JSON.stringify(plan.createdBy),
  };
}

/** What a change of a stored plan may set; its identity and creation stay as they are. */
export type PlanChange = Partial<
  Pick<
    RolloutPlan,
    | 'planVersion'
    | 'state'
    | 'currentStep'
    | 'stepStartedAt'
    | 'baseVersion'
    | 'recommendation'
    | 'history'
    | 'updatedAt'
  >
>;

function changedFields(change: PlanChange): Partial<PlanRow> {
  const fields: Partial<PlanRow> = {};
  if (change.planVersion !== undefined) fields.plan_version = change.planVersion;
  if (change.state !== undefined) fields.state = change.state;
  if (change.currentStep !== undefined) fields.current_step = change.currentStep;
  if (change.stepStartedAt !== undefined) fields.step_started_at = change.stepStartedAt;
  if (change.baseVersion !== undefined) fields.base_version = change.baseVersion;
  if (change.recommendation !== undefined)
    fields.recommendation = change.recommendation === null ? null : JSON.stringify(change.recommendation);
  if (change.history !== undefined) fields.history = JSON.stringify(change.history);
  if (change.updatedAt !== undefined) fields.updated_at = change.updatedAt;
  return fields;
}

const planQuery = (executor: Executor, envId: string, experimentId: string, planId: string) =>
  own(executor)
    .selectFrom('rollout_plans')
    .selectAll()
    .where('env_id', '=', envId)
    .where('experiment_id', '=', experimentId)
    .where('id', '=', planId);

export async function findPlan(
  executor: Executor,
  scope: PlanScope,
  experimentId: string,
  planId: string,
): Promise<RolloutPlan | undefined> {
  const row = await planQuery(executor, scope.envId, experimentId, planId).executeTakeFirst();
  return row && planOf(row, scope.env);
}

/** The plan, locked until the transaction of `trx` ends. */
export async function lockPlan(
  trx: Executor,
  scope: PlanScope,
  experimentId: string,
  planId: string,
): Promise<RolloutPlan | undefined> {
  const row = await forUpdate(trx, planQuery(trx, scope.envId, experimentId, planId)).executeTakeFirst();
  return row && planOf(row, scope.env);
}

/** The newest 100 plans of an experiment. */
export async function listPlans(executor: Executor, scope: PlanScope, experimentId: string): Promise<RolloutPlan[]> {
  const rows = await own(executor)
    .selectFrom('rollout_plans')
    .selectAll()
    .where('env_id', '=', scope.envId)
    .where('experiment_id', '=', experimentId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(100)
    .execute();
  return rows.map((row) => planOf(row, scope.env));
}

/** Inserts the plan; false when its id is taken. */
export async function insertPlan(trx: Executor, envId: string, plan: RolloutPlan): Promise<boolean> {
  const row = rowOf(plan, envId);
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
export async function updatePlan(trx: Executor, plan: RolloutPlan, change: PlanChange): Promise<RolloutPlan> {
  await own(trx)
    .updateTable('rollout_plans')
    .set(changedFields(change))
    .where('id', '=', plan.id)
    .where('plan_version', '=', plan.planVersion)
    .execute();
  return planOf(
    await own(trx).selectFrom('rollout_plans').selectAll().where('id', '=', plan.id).executeTakeFirstOrThrow(),
    plan.env,
  );
}

/** Sets fields without a version check (the caller holds the plan's lock and has just saved it). */
export async function setPlanFields(trx: Executor, planId: string, change: PlanChange): Promise<void> {
  await own(trx).updateTable('rollout_plans').set(changedFields(change)).where('id', '=', planId).execute();
}

/** The ids of unfinished (draft, active, paused) plans, by flag key. */
export async function unfinishedPlansByFlag(executor: Executor, envId: string): Promise<Map<string, string[]>> {
  const rows = await own(executor)
    .selectFrom('rollout_plans')
    .select(['id', 'flag_key'])
    .where('env_id', '=', envId)
    .where('state', 'in', ['draft', 'active', 'paused'])
    .orderBy('id')
    .execute();
  const byFlag = new Map<string, string[]>();
  for (const r of rows) byFlag.set(r.flag_key, [...(byFlag.get(r.flag_key) ?? []), r.id]);
  return byFlag;
}

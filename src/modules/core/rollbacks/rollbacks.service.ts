// Rollbacks: plan (read-only, deterministic) and apply (the plan recomputed under the environment's
// lock, its digest compared, the restored state written as version N+1 with its journal entry —
// through the config mutator like every other change, so protected environments refuse it there).
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { AppError, conflict, versionConflict } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import { authorityOf } from '../journal/index.js';
import {
  resolveTarget,
  type ConfigEdit,
  type ConfigMutator,
  type ConfigStateStore,
  type CurrentConfig,
  type EnvironmentTarget,
} from '../config/index.js';
import { planRollback, type RollbackPlan, type RollbackScopeInput } from './rollback-plan.js';

export interface RollbackRequest {
  targetVersion: number;
  scope?: RollbackScopeInput;
}

export interface PlanInput extends RollbackRequest {
  appId: string;
  env: string;
  expectedVersion: number;
}

export interface ApplyInput extends PlanInput {
  planDigest: string;
  reason?: string;
}

export interface RollbacksService {
  plan(principal: Principal, input: PlanInput): Promise<RollbackPlan>;
  apply(
    trx: Executor,
    principal: Principal,
    input: ApplyInput,
  ): Promise<{ version: number; changeId: string | null; plan: RollbackPlan }>;
  /**
   * The edit a rollback makes to `current` (inside the caller's locked transaction): what apply and
   * the authority workflow both write. 404 when the target is not retained, 409 plan_conflict when a
   * digest is given and differs, 400 rollback_invalid.
   */
  edit(
    executor: Executor,
    target: EnvironmentTarget,
    current: CurrentConfig,
    request: RollbackRequest & { planDigest?: string },
  ): Promise<ConfigEdit<RollbackPlan>>;
}

const notRetained = (version: number, env: string) =>
  new AppError(404, 'not_found', `Version ${version} of environment ${env} is not retained.`, {
    resolution: 'List the retained versions with GET /api/v1/config-versions and plan a rollback to one of them.',
  });

const planConflict = (digest: string) =>
  conflict('plan_conflict', 'The plan recomputed now differs from the plan you reviewed (its digest changed).', {
    metadata: { planDigest: digest },
    resolution: "Plan the rollback again with POST /api/v1/rollbacks/plan, review it, and apply that plan's digest.",
  });

export function createRollbacksService(deps: {
  access: AppAccess;
  store: ConfigStateStore;
  mutator: ConfigMutator;
}): RollbacksService {
  const { access, store, mutator } = deps;

  async function planAt(
    executor: Executor | null,
    target: EnvironmentTarget,
    current: CurrentConfig,
    request: RollbackRequest,
  ) {
    const retained =
      request.targetVersion <= current.version
        ? await store.retained(executor, target.envId, request.targetVersion)
        : undefined;
    if (!retained) throw notRetained(request.targetVersion, target.env);
    return planRollback({
      appId: target.appId,
      env: target.env,
      from: current,
      target: { version: retained.version, state: retained.state },
      scope: request.scope,
    });
  }

  async function edit(
    executor: Executor,
    target: EnvironmentTarget,
    current: CurrentConfig,
    request: RollbackRequest & { planDigest?: string; reason?: string },
  ): Promise<ConfigEdit<RollbackPlan>> {
    const { plan, state } = await planAt(executor, target, current, request);
    if (request.planDigest !== undefined && plan.digest !== request.planDigest) throw planConflict(plan.digest);
    return {
      state,
      operation: 'rollback.apply',
      resourceType: 'environment',
      resourceId: target.envId,
      result: plan,
      context: {
        targetVersion: plan.targetVersion,
        planDigest: plan.digest,
        scope: plan.scope,
        ...(request.reason ? { reason: request.reason } : {}),
      },
    };
  }

  return {
    async plan(principal, input) {
      const target = await resolveTarget(access, principal, input.appId, input.env, 'read');
      const current = await store.current(target);
      if (input.expectedVersion !== current.version) throw versionConflict(current.version);
      return (await planAt(null, target, current, input)).plan;
    },

    async apply(trx, principal, input) {
      const target = await resolveTarget(access, principal, input.appId, input.env, 'change', trx);
      const applied = await mutator.apply(
        trx,
        { target, expectedVersion: input.expectedVersion, source: 'rollback', authority: authorityOf(principal) },
        (current) => edit(trx, target, current, input),
      );
      return { version: applied.version, changeId: applied.changeId, plan: applied.result };
    },

    edit,
  };
}

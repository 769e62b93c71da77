// How a rollout plan changes, shared by rollouts.service.ts (create, read, transition) and
// rollout-recommendations.service.ts (recommend, approve): the plan is locked at the version the
// caller holds, saved with its history event and journal entry, and moved to a state, a step served
// through the config mutator (a new config version, journaled; protected environments enforced).
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { conflict, notFound, versionConflict } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import type { ExperimentResultsSource, ExperimentsReadModel } from '../experiments/index.js';
import { authorityOf, type JournalService, type JournalSource } from '../../core/journal/index.js';
import type { MetricsService } from '../experiment-metrics/index.js';
import type { RollbacksService } from '../../core/rollbacks/index.js';
import {
  clearanceContext,
  resolveTarget,
  type Clearance,
  type ConfigMutator,
  type EnvironmentTarget,
} from '../../core/config/index.js';
import type { PlanEvent, PlanState, RolloutPlan } from './rollouts.model.js';
import { lockPlan, updatePlan, type PlanChange } from './rollouts.repository.js';

export interface PlanRef {
  appId: string;
  env: string;
  planVersion: number;
  /** Why: journaled; required for a stop in a protected environment. */
  reason?: string;
}

export interface RolloutsDeps {
  db: Kysely<Database>;
  access: AppAccess;
  mutator: ConfigMutator;
  rollbacks: Pick<RollbacksService, 'edit'>;
  metrics: Pick<MetricsService, 'findRevision'>;
  results: ExperimentResultsSource;
  /** The experiment a plan rolls out, and its current iteration. */
  experiments: ExperimentsReadModel;
  /** Plan changes are journaled (resourceType rollout_plan) besides the plan's own history. */
  journal?: Pick<JournalService, 'record'>;
  now?: () => number;
}

/** What a plan change adds to its journal entries: the reason given, and the clearance's context. */
export const journalContext = (
  reason: string | undefined,
  clearance: Clearance | undefined,
): Record<string, unknown> => ({
  ...(reason !== undefined ? { reason } : {}),
  ...clearanceContext(clearance),
});

export const invalidTransition = (from: PlanState, to: string) =>
  conflict('invalid_transition', `A ${from} plan cannot move to ${to}.`, {
    resolution:
      'Read the plan (GET …/rollouts/{planId}) for its state; completed, cancelled and rolled-back plans are final.',
  });

/** The clock, the experiment a plan rolls out, and the plan's locked, saved and moved versions. */
export function rolloutPlanChanges(deps: RolloutsDeps) {
  const now = deps.now ?? Date.now;
  const iso = () => new Date(now()).toISOString();

  async function experimentOf(
    executor: Executor,
    principal: Principal,
    appId: string,
    env: string,
    experimentId: string,
    need: Permission,
  ) {
    const target = await resolveTarget(deps.access, principal, appId, env, need, executor);
    const experiment = await deps.experiments.experiment(executor, target.envId, experimentId);
    if (!experiment) throw notFound(`Experiment ${experimentId}`);
    return { target, experiment };
  }

  const currentIteration = (executor: Executor, experimentId: string) =>
    deps.experiments.currentIteration(executor, experimentId);

  async function locked(
    trx: Executor,
    principal: Principal,
    experimentId: string,
    planId: string,
    input: PlanRef,
    need: Permission,
  ) {
    const { target, experiment } = await experimentOf(trx, principal, input.appId, input.env, experimentId, need);
    const plan = await lockPlan(trx, target, experimentId, planId);
    if (!plan) throw notFound(`Rollout plan ${planId}`);
    if (plan.planVersion !== input.planVersion) throw versionConflict(plan.planVersion);
    return { target, experiment, plan };
  }

  async function journaled(
    trx: Executor,
    target: EnvironmentTarget,
    source: JournalSource,
    plan: RolloutPlan,
    event: PlanEvent,
    extra: Record<string, unknown> = {},
  ) {
    await deps.journal?.record(trx, {
      appId: target.appId,
      env: target.env,
      operation: `rollout.${event.action === 'created' ? 'create' : event.action}`,
      source,
      resourceType: 'rollout_plan',
      resourceId: plan.id,
      authority: event.by,
      beforeVersion: null,
      afterVersion: null,
      diff: [],
      context: {
        experimentId: plan.experimentId,
        planVersion: plan.planVersion,
        ...(event.from ? { from: event.from } : {}),
        ...(event.to ? { to: event.to } : {}),
        ...(event.step !== undefined ? { step: event.step } : {}),
        ...(event.recommendation ? { recommendation: event.recommendation } : {}),
        ...(event.configVersion !== undefined ? { configVersion: event.configVersion } : {}),
        ...extra,
      },
    });
  }

  async function save(
    trx: Executor,
    plan: RolloutPlan,
    change: PlanChange,
    event: PlanEvent,
    journal: { target: EnvironmentTarget; source: JournalSource; context?: Record<string, unknown> },
  ) {
    const saved = await updatePlan(trx, plan, {
      ...change,
      planVersion: plan.planVersion + 1,
      history: [...plan.history, event],
      updatedAt: event.at,
    });
    await journaled(trx, journal.target, journal.source, saved, event, journal.context);
    return saved;
  }

  /** Serves the variant's value to `percentage` % of the flag's subjects (a new config version; null when nothing changed). */
  async function serve(
    trx: Executor,
    principal: Principal,
    source: JournalSource,
    target: EnvironmentTarget,
    plan: RolloutPlan,
    value: unknown,
    percentage: number,
    step: number,
    clearance: Clearance | undefined,
  ) {
    const applied = await deps.mutator.apply(
      trx,
      { target, source, authority: authorityOf(principal), ...(clearance ? { clearance } : {}) },
      (current) => {
        const flag = current.state.flags[plan.flagKey];
        if (!flag)
          throw conflict('flag_missing', `Flag ${plan.flagKey} of the plan's experiment no longer exists.`, {
            resolution: 'Cancel the plan.',
          });
        const flags = {
          ...current.state.flags,
          [plan.flagKey]: { ...flag, rollout: { percentage, value, salt: `rollout:${plan.id}` }, updatedAt: iso() },
        };
        return {
          state: { ...current.state, flags },
          operation: 'rollout.step',
          resourceType: 'flag',
          resourceId: plan.flagKey,
          result: current.version,
          context: { planId: plan.id, experimentId: plan.experimentId, variant: plan.variant, step, percentage },
        };
      },
    );
    return { version: applied.version, base: applied.result, changed: applied.applied };
  }

  async function moveTo(
    trx: Executor,
    principal: Principal,
    source: JournalSource,
    target: EnvironmentTarget,
    experiment: { variants: { key: string; value: unknown }[] },
    plan: RolloutPlan,
    to: PlanState,
    step: number | null,
    action: PlanEvent['action'],
    why: { reason?: string; clearance?: Clearance } = {},
  ) {
    const at = iso();
    const change: PlanChange = { state: to };
    let configVersion: number | undefined;
    if (step !== null && (to === 'active' || to === 'completed')) {
      const value = experiment.variants.find((v) => v.key === plan.variant)!.value;
      const served = await serve(
        trx,
        principal,
        source,
        target,
        plan,
        value,
        plan.steps[step]!.percentage,
        step,
        why.clearance,
      );
      if (served.changed) configVersion = served.version;
      if (plan.baseVersion === null) change.baseVersion = served.base;
      if (step !== plan.currentStep) {
        change.currentStep = step;
        change.stepStartedAt = at;
      }
    }
    const event: PlanEvent = {
      at,
      action,
      from: plan.state,
      to,
      step,
      ...(configVersion !== undefined ? { configVersion } : {}),
      ...(why.reason !== undefined ? { reason: why.reason } : {}),
      by: authorityOf(principal),
    };
    return save(trx, plan, change, event, { target, source, context: journalContext(why.reason, why.clearance) });
  }

  return { now, iso, experimentOf, currentIteration, locked, journaled, save, moveTo };
}

export type RolloutPlanChanges = ReturnType<typeof rolloutPlanChanges>;

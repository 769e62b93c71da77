// Rollout plans (issue 12, decision 0025). A plan rolls one variant of an experiment out on the
// experiment's flag in steps: at step k the flag's percentage rollout serves the variant's value to
// steps[k].percentage % of subjects outside the experiment (the experiment keeps measuring on its own
// allocation). Every step is a config version through the config mutator (journaled, protected
// environments enforced). Recommendations read the newest results of the experiment iteration;
// approving one acts on it, a rollback through the rollbacks module's audited CAS edit. In a protected
// environment (decision 0029) pausing, cancelling and approving a recommended pause or rollback are
// direct with a reason (journal source emergency); activating, moving a step, completing and
// approving a proceed need a clearance from an executed proposal (rollout-change-kinds.ts), else 403.
// This file holds drafting, reading and moving plans; rollout-recommendations.service.ts the
// recommendations and their approval, rollout-plan-changes.ts how either changes a plan.
import type { Executor } from '../../../db/transaction.js';
import { conflict, notFound, validationError } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import { authorityOf, type JournalSource } from '../../core/journal/index.js';
import {
  clearanceContext,
  clearDirectMove,
  clearedId,
  clearedPermission,
  clearedSource,
  proposalHint,
  type Clearance,
  type EnvironmentTarget,
} from '../../core/config/index.js';
import {
  PLAN_TRANSITIONS,
  stepProblems,
  type PlanEvent,
  type RolloutGuardrail,
  type RolloutPlan,
  type RolloutStep,
  type TransitionTarget,
} from './rollouts.model.js';
import { findPlan, insertPlan, listPlans, unfinishedPlansByFlag } from './rollouts.repository.js';
import { invalidTransition, rolloutPlanChanges, type PlanRef, type RolloutsDeps } from './rollout-plan-changes.js';
import { rolloutRecommendations, type RolloutRecommendations } from './rollout-recommendations.service.js';

export interface CreatePlanInput {
  appId: string;
  env: string;
  planId?: string;
  dryRun?: boolean;
  variant: string;
  steps: RolloutStep[];
  guardrails: RolloutGuardrail[];
  minimumUnitsPerStep?: number;
}

/**
 * Changes take an optional clearance (core/config clearance.ts): the authority workflow's, when it
 * executes or previews an approved proposal. Without one, a protected environment admits only stops.
 */
export interface RolloutsService extends RolloutRecommendations {
  /** The plan a create would store (validated), without storing it. */
  preview(principal: Principal, experimentId: string, input: CreatePlanInput): Promise<RolloutPlan>;
  create(
    trx: Executor,
    principal: Principal,
    experimentId: string,
    input: CreatePlanInput,
    source?: JournalSource,
    clearance?: Clearance,
  ): Promise<RolloutPlan>;
  get(
    principal: Principal,
    experimentId: string,
    planId: string,
    query: { appId: string; env: string },
  ): Promise<RolloutPlan>;
  list(principal: Principal, experimentId: string, query: { appId: string; env: string }): Promise<RolloutPlan[]>;
  /** The plan as stored, read in `executor` (no access check: the caller resolved the target). */
  find(
    executor: Executor,
    target: EnvironmentTarget,
    experimentId: string,
    planId: string,
  ): Promise<RolloutPlan | null>;
  transition(
    trx: Executor,
    principal: Principal,
    source: JournalSource,
    experimentId: string,
    planId: string,
    input: PlanRef & { to: TransitionTarget; step?: number },
    clearance?: Clearance,
  ): Promise<RolloutPlan>;
  /** Unfinished (draft, active, paused) plans per flag key: cleanup's inventory and readiness. */
  unfinishedByFlag(target: EnvironmentTarget): Promise<Map<string, string[]>>;
}

export function createRolloutsService(deps: RolloutsDeps): RolloutsService {
  const { db } = deps;
  const changes = rolloutPlanChanges(deps);
  const { iso, experimentOf, currentIteration, locked, journaled, moveTo } = changes;

  async function draft(
    executor: Executor,
    principal: Principal,
    experimentId: string,
    input: CreatePlanInput,
    clearance?: Clearance,
  ): Promise<{ plan: RolloutPlan; target: EnvironmentTarget }> {
    const { target, experiment } = await experimentOf(
      executor,
      principal,
      input.appId,
      input.env,
      experimentId,
      clearedPermission(clearance, 'change'),
    );
    const problems = stepProblems(input.steps).map((message) => ({ path: '/steps', message }));
    if (!experiment.variants.some((v) => v.key === input.variant))
      problems.push({
        path: '/variant',
        message: `must be a variant of experiment ${experimentId} (${experiment.variants.map((v) => v.key).join(', ')})`,
      });
    if (experiment.variants[0]?.key === input.variant)
      problems.push({ path: '/variant', message: 'is the control; roll out a treatment' });
    const seen = new Set<string>();
    for (const [i, g] of input.guardrails.entries()) {
      if (seen.has(g.metricId)) problems.push({ path: `/guardrails/${i}/metricId`, message: 'is named twice' });
      seen.add(g.metricId);
      const metric = await deps.metrics.findRevision(executor, target, g.metricId, g.revision);
      if (!metric)
        problems.push({
          path: `/guardrails/${i}`,
          message: `metric ${g.metricId} has no revision ${g.revision} in this environment`,
        });
    }
    if (problems.length > 0) throw validationError('The rollout plan is invalid.', problems);
    const iteration = await currentIteration(executor, experimentId);
    if (!iteration)
      throw conflict(
        'experiment_not_started',
        `Experiment ${experimentId} has no iteration yet; its aggregates guard the rollout.`,
        { resolution: 'Start the experiment first.' },
      );
    const at = iso();
    const by = authorityOf(principal);
    const created: PlanEvent = { at, action: 'created', to: 'draft', by };
    return {
      target,
      plan: {
        id: input.planId ?? clearedId(clearance, 'rop'),
        appId: target.appId,
        env: target.env,
        experimentId,
        flagKey: experiment.flagKey,
        iterationId: iteration.id,
        planVersion: 1,
        state: 'draft',
        variant: input.variant,
        steps: input.steps,
        guardrails: input.guardrails,
        minimumUnitsPerStep: input.minimumUnitsPerStep ?? null,
        currentStep: null,
        stepStartedAt: null,
        baseVersion: null,
        recommendation: null,
        history: [created],
        createdAt: at,
        updatedAt: at,
        createdBy: by,
      },
    };
  }

  return {
    async preview(principal, experimentId, input) {
      return (await draft(db, principal, experimentId, input)).plan;
    },

    async create(trx, principal, experimentId, input, sourceGiven = 'api', clearance) {
      const source = clearedSource(clearance, sourceGiven);
      const { plan, target } = await draft(trx, principal, experimentId, input, clearance);
      if (!(await insertPlan(trx, target.envId, plan))) {
        throw conflict('plan_id_conflict', `A rollout plan with id ${plan.id} exists.`, {
          resolution: 'Read it with GET …/rollouts/{planId}, or choose another planId.',
        });
      }
      await journaled(trx, target, source, plan, plan.history[0]!, clearanceContext(clearance));
      return plan;
    },

    async get(principal, experimentId, planId, query) {
      const { target } = await experimentOf(db, principal, query.appId, query.env, experimentId, 'read');
      const plan = await findPlan(db, target, experimentId, planId);
      if (!plan) throw notFound(`Rollout plan ${planId}`);
      return plan;
    },

    async list(principal, experimentId, query) {
      const { target } = await experimentOf(db, principal, query.appId, query.env, experimentId, 'read');
      return listPlans(db, target, experimentId);
    },

    async find(executor, target, experimentId, planId) {
      return (await findPlan(executor, target, experimentId, planId)) ?? null;
    },

    async transition(trx, principal, sourceGiven, experimentId, planId, input, clearanceGiven) {
      const { target, experiment, plan } = await locked(
        trx,
        principal,
        experimentId,
        planId,
        input,
        clearedPermission(clearanceGiven, 'change'),
      );
      if (!PLAN_TRANSITIONS[plan.state].includes(input.to)) throw invalidTransition(plan.state, input.to);
      if (input.step !== undefined && input.to !== 'active')
        throw validationError('step is only for moving to active.', [
          { path: '/step', message: 'must be absent unless to is active' },
        ]);
      if (input.step !== undefined && input.step >= plan.steps.length)
        throw validationError(`The plan has ${plan.steps.length} steps (0..${plan.steps.length - 1}).`, [
          { path: '/step', message: 'is past the last step' },
        ]);
      if (input.to === 'active' && plan.state === 'active' && input.step === undefined)
        throw validationError('An active plan moves to another step: give step.', [
          { path: '/step', message: 'is required to move an active plan' },
        ]);
      const step =
        input.to === 'active'
          ? (input.step ?? plan.currentStep ?? 0)
          : input.to === 'completed'
            ? plan.steps.length - 1
            : null;
      // Pausing and cancelling serve nothing new: the stops. Activating, moving a step (either way) and completing change what is served.
      const clearance = clearDirectMove(
        target,
        {
          stop: input.to === 'paused' || input.to === 'cancelled',
          reason: input.reason,
          proposal: proposalHint(
            'rollout.transition',
            target,
            [experimentId, planId],
            {
              experimentId,
              planId,
              planVersion: input.planVersion,
              to: input.to,
              ...(input.step !== undefined ? { step: input.step } : {}),
            },
            [
              ['to', input.to],
              ['step', input.step],
              ['plan-version', input.planVersion],
            ],
          ),
        },
        clearanceGiven,
      );
      return moveTo(
        trx,
        principal,
        clearedSource(clearance, sourceGiven),
        target,
        experiment,
        plan,
        input.to,
        step,
        'transition',
        { reason: input.reason, clearance },
      );
    },

    ...rolloutRecommendations(deps, changes),

    unfinishedByFlag: (target) => unfinishedPlansByFlag(db, target.envId),
  };
}

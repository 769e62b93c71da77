// Rollout plans (issue 12, decision 0025). A plan rolls one variant of an experiment out on the
// experiment's flag in steps: at step k the flag's percentage rollout serves the variant's value to
// steps[k].percentage % of subjects outside the experiment (the experiment keeps measuring on its own
// allocation). Every step is a config version through the config mutator (journaled, protected
// environments enforced). Recommendations read the newest results of the experiment iteration;
// approving one acts on it, a rollback through the rollbacks module's audited CAS edit. In a protected
// environment (decision 0029) pausing, cancelling and approving a recommended pause or rollback are
// direct with a reason (journal source emergency); activating, moving a step, completing and
// approving a proceed need a clearance from an executed proposal (rollout-change-kinds.ts), else 403.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import type { AppAccess, Permission } from '../../../platform/app-access.js';
import { conflict, notFound, validationError, versionConflict } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import type { ExperimentResultsSource, ExperimentsReadModel } from '../experiments/index.js';
import { authorityOf, type JournalService, type JournalSource } from '../../core/journal/index.js';
import type { MetricsService } from '../experiment-metrics/index.js';
import type { RollbacksService } from '../../core/rollbacks/index.js';
import {
  clearanceContext,
  clearDirectMove,
  clearedId,
  clearedPermission,
  clearedSource,
  resolveTarget,
  shellWord,
  type Clearance,
  type ConfigMutator,
  type EnvironmentTarget,
  type ProposalHint,
} from '../../core/config/index.js';
import { recommend } from './recommendation.js';
import {
  ACTIONABLE,
  PLAN_TRANSITIONS,
  stepProblems,
  type PlanEvent,
  type PlanState,
  type Recommendation,
  type RolloutGuardrail,
  type RolloutPlan,
  type RolloutStep,
  type TransitionTarget,
} from './rollouts.model.js';
import {
  findPlan,
  insertPlan,
  listPlans,
  lockPlan,
  setPlanFields,
  unfinishedPlansByFlag,
  updatePlan,
  type PlanChange,
} from './rollouts.repository.js';

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

export interface PlanRef {
  appId: string;
  env: string;
  planVersion: number;
  /** Why: journaled; required for a stop in a protected environment. */
  reason?: string;
}

/**
 * Changes take an optional clearance (core/config clearance.ts): the authority workflow's, when it
 * executes or previews an approved proposal. Without one, a protected environment admits only stops.
 */
export interface RolloutsService {
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
  /** In a transaction of its own: a confirmed recommendation is stored under the plan's lock. */
  recommend(
    principal: Principal,
    experimentId: string,
    planId: string,
    input: PlanRef & { confirm?: boolean },
    source?: JournalSource,
  ): Promise<{ recommendation: Recommendation; plan: RolloutPlan }>;
  approve(
    trx: Executor,
    principal: Principal,
    source: JournalSource,
    experimentId: string,
    planId: string,
    input: PlanRef & { recommendationDigest: string },
    clearance?: Clearance,
  ): Promise<{ plan: RolloutPlan; configVersion: number | null }>;
  /** Unfinished (draft, active, paused) plans per flag key: cleanup's inventory and readiness. */
  unfinishedByFlag(target: EnvironmentTarget): Promise<Map<string, string[]>>;
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

/** How a move refused in a protected environment is proposed instead. */
function proposalHint(
  kind: 'rollout.transition' | 'rollout.approve',
  target: EnvironmentTarget,
  body: Record<string, unknown>,
  options: [string, string | number | undefined][],
): ProposalHint {
  const flags = options
    .filter(([, v]) => v !== undefined)
    .map(([name, v]) => ` --${name} ${shellWord(v!)}`)
    .join('');
  const command = `ensign propose ${kind.replace('.', '-')} ${shellWord(String(body.experimentId))} ${shellWord(String(body.planId))} --app ${shellWord(target.appId)} --env ${shellWord(target.env)}${flags}`;
  return { kind, body, command };
}

/** What a plan change adds to its journal entries: the reason given, and the clearance's context. */
const journalContext = (reason: string | undefined, clearance: Clearance | undefined): Record<string, unknown> => ({
  ...(reason !== undefined ? { reason } : {}),
  ...clearanceContext(clearance),
});

const invalidTransition = (from: PlanState, to: string) =>
  conflict('invalid_transition', `A ${from} plan cannot move to ${to}.`, {
    resolution:
      'Read the plan (GET …/rollouts/{planId}) for its state; completed, cancelled and rolled-back plans are final.',
  });

export function createRolloutsService(deps: RolloutsDeps): RolloutsService {
  const { db } = deps;
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

    async recommend(principal, experimentId, planId, input, source = 'api') {
      // The results are read before the plan is locked: the results port reads outside any
      // transaction (on SQLite a read beside an open transaction would wait for it forever).
      const { target } = await experimentOf(
        db,
        principal,
        input.appId,
        input.env,
        experimentId,
        input.confirm ? 'change' : 'read',
      );
      const iteration = await currentIteration(db, experimentId);
      const results = iteration
        ? await deps.results.latest({
            appId: target.appId,
            envId: target.envId,
            experimentId,
            iterationId: iteration.id,
            iterationRevision: iteration.revision,
          })
        : null;
      return inTransaction(db, async (trx) => {
        const { plan } = await locked(trx, principal, experimentId, planId, input, input.confirm ? 'change' : 'read');
        const directions = new Map<string, boolean>();
        for (const g of plan.guardrails)
          directions.set(
            g.metricId,
            (await deps.metrics.findRevision(trx, target, g.metricId, g.revision))?.direction !== 'decrease',
          );
        const recommendation = recommend({
          plan,
          iteration,
          results,
          higherIsBetter: (id) => directions.get(id) ?? true,
          now: now(),
        });
        if (!input.confirm) return { recommendation, plan };
        const saved = await save(
          trx,
          plan,
          { recommendation },
          {
            at: recommendation.evaluatedAt,
            action: 'recommendation',
            recommendation: recommendation.kind,
            by: authorityOf(principal),
          },
          { target, source },
        );
        return { recommendation, plan: saved };
      });
    },

    async approve(trx, principal, sourceGiven, experimentId, planId, input, clearanceGiven) {
      const { target, experiment, plan } = await locked(
        trx,
        principal,
        experimentId,
        planId,
        input,
        clearedPermission(clearanceGiven, 'approve'),
      );
      const stored = plan.recommendation;
      if (!stored || stored.digest !== input.recommendationDigest) {
        throw conflict(
          'recommendation_mismatch',
          "recommendationDigest is not the digest of the plan's stored recommendation.",
          { resolution: 'Ask for a recommendation with confirm: true, review it, and approve its digest.' },
        );
      }
      if (stored.approvedAt)
        throw conflict('recommendation_not_actionable', 'This recommendation was already approved.', {
          resolution: 'Ask for a new recommendation.',
        });
      if (!ACTIONABLE.has(stored.kind)) {
        throw conflict(
          'recommendation_not_actionable',
          `A ${stored.kind} recommendation cannot be approved: it only informs.`,
          { resolution: 'Wait for fresh, valid data and ask for a new recommendation.' },
        );
      }
      if (plan.state !== 'active' && plan.state !== 'paused') throw invalidTransition(plan.state, stored.kind);
      if (stored.kind === 'recommend_rollback' && plan.baseVersion === null)
        throw conflict(
          'recommendation_not_actionable',
          'The plan never served its variant: there is nothing to roll back.',
          { resolution: 'Cancel the plan.' },
        );
      // A recommended pause or rollback only takes exposure away: the stops. A proceed widens it.
      const clearance = clearDirectMove(
        target,
        {
          stop: stored.kind !== 'proceed',
          reason: input.reason,
          proposal: proposalHint(
            'rollout.approve',
            target,
            { experimentId, planId, planVersion: input.planVersion, recommendationDigest: stored.digest },
            [
              ['digest', stored.digest],
              ['plan-version', input.planVersion],
            ],
          ),
        },
        clearanceGiven,
      );
      const source = clearedSource(clearance, sourceGiven);
      const why = { reason: input.reason, clearance };
      const context = journalContext(input.reason, clearance);
      const approved = { ...plan, recommendation: { ...stored, approvedAt: iso() } };
      const withApproval: PlanChange = { recommendation: approved.recommendation };
      const approval = {
        at: iso(),
        action: 'approval' as const,
        from: plan.state,
        recommendation: stored.kind,
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
        by: authorityOf(principal),
      };
      if (stored.kind === 'recommend_pause') {
        const saved = await save(
          trx,
          plan,
          { ...withApproval, state: 'paused' },
          { ...approval, to: 'paused' },
          { target, source, context },
        );
        return { plan: saved, configVersion: null };
      }
      if (stored.kind === 'recommend_rollback') {
        // The rollback's own entry keeps source rollback unless a clearance names another.
        const applied = await deps.mutator.apply(
          trx,
          {
            target,
            source: clearedSource(clearance, 'rollback'),
            authority: authorityOf(principal),
            ...(clearance ? { clearance } : {}),
          },
          async (current) => {
            const edit = await deps.rollbacks.edit(trx, target, current, {
              targetVersion: plan.baseVersion!,
              scope: { flags: [plan.flagKey] },
            });
            return {
              ...edit,
              context: {
                ...edit.context,
                planId: plan.id,
                recommendationDigest: stored.digest,
                ...(input.reason !== undefined ? { reason: input.reason } : {}),
              },
            };
          },
        );
        const saved = await save(
          trx,
          plan,
          { ...withApproval, state: 'rolled_back' },
          {
            ...approval,
            to: 'rolled_back',
            ...(applied.applied ? { configVersion: applied.version } : {}),
          },
          { target, source, context },
        );
        return { plan: saved, configVersion: applied.version };
      }
      // proceed: the next step, or completion after the last.
      const next = (plan.currentStep ?? -1) + 1;
      const last = next >= plan.steps.length - 1;
      const moved = await moveTo(
        trx,
        principal,
        source,
        target,
        experiment,
        { ...plan },
        last ? 'completed' : 'active',
        Math.min(next, plan.steps.length - 1),
        'approval',
        why,
      );
      await setPlanFields(trx, plan.id, withApproval);
      return {
        plan: { ...moved, recommendation: approved.recommendation },
        configVersion: moved.history.at(-1)?.configVersion ?? null,
      };
    },

    unfinishedByFlag: (target) => unfinishedPlansByFlag(db, target.envId),
  };
}

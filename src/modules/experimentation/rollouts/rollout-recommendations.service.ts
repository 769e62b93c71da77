// Rollout recommendations (issue 12, decision 0025): a recommendation reads the newest results of
// the experiment iteration against the plan's guardrails; approving one acts on it — a pause, the next
// step, or a rollback through the rollbacks module's audited CAS edit. In a protected environment
// (decision 0029) approving a recommended pause or rollback is direct with a reason (journal source
// emergency); approving a proceed needs a clearance from an executed proposal, else 403.
import { inTransaction, type Executor } from '../../../db/transaction.js';
import { conflict } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import { authorityOf, type JournalSource } from '../../core/journal/index.js';
import {
  clearDirectMove,
  clearedPermission,
  clearedSource,
  proposalHint,
  type Clearance,
} from '../../core/config/index.js';
import { recommend } from './recommendation.js';
import { ACTIONABLE, type Recommendation, type RolloutPlan } from './rollouts.model.js';
import { setPlanFields, type PlanChange } from './rollouts.repository.js';
import {
  invalidTransition,
  journalContext,
  type PlanRef,
  type RolloutPlanChanges,
  type RolloutsDeps,
} from './rollout-plan-changes.js';

/** The recommendation half of RolloutsService (rollouts.service.ts). */
export interface RolloutRecommendations {
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
}

export function rolloutRecommendations(deps: RolloutsDeps, changes: RolloutPlanChanges): RolloutRecommendations {
  const { db } = deps;
  const { now, iso, experimentOf, currentIteration, locked, save, moveTo } = changes;

  return {
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
            [experimentId, planId],
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
  };
}

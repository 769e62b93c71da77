// Rollout plan moves as change kinds of the authority workflow (decision 0029): registered in
// src/app.ts, proposed with the direct route's body plus experimentId and planId, made by the same
// service method cleared by the proposal, so an executed proposal leaves the plan (state,
// currentStep, planVersion) and what the flag serves exactly as the direct route would. An approval
// names the recommendation's digest: a newer recommendation (or any plan change) fails at execute.
import type { Executor } from '../../../db/transaction.js';
import { IdString } from '../../../platform/common-schemas.js';
import { proposalBody, type ChangeKindHandler, type ResourceView } from '../../core/authority/index.js';
import { proposedId, type EnvironmentTarget } from '../../core/config/index.js';
import type { RolloutPlan, TransitionTarget } from './rollouts.model.js';
import { ApproveBody, CreatePlanBody, TransitionBody } from './rollouts.schemas.js';
import type { CreatePlanInput, RolloutsService } from './rollouts.service.js';

const experimentId = IdString("exp_…: the plan's experiment");
const planId = IdString("The rollout plan's id");

/** A plan as reviewers compare it: no timestamps, no history (it names who acted), the approval as a flag. */
export function stablePlan(plan: RolloutPlan): Record<string, unknown> {
  const {
    createdAt: _created,
    updatedAt: _updated,
    createdBy: _by,
    history: _history,
    stepStartedAt: _started,
    recommendation,
    ...rest
  } = plan;
  const stored = recommendation
    ? (({ approvedAt, ...kept }) => ({ ...kept, approved: approvedAt !== undefined }))(recommendation)
    : null;
  return { ...rest, recommendation: stored };
}

type Ids = { experimentId: string; planId: string };

export function rolloutChangeKinds(rollouts: RolloutsService): ChangeKindHandler[] {
  const viewOf = async (executor: Executor, target: EnvironmentTarget, ids: Ids): Promise<ResourceView> => {
    const found = await rollouts.find(executor, target, ids.experimentId, ids.planId);
    return { type: 'rollout_plan', id: ids.planId, state: found ? stablePlan(found) : null };
  };
  const view = (executor: Executor, target: EnvironmentTarget, body: Record<string, unknown>) =>
    viewOf(executor, target, body as Ids);

  return [
    {
      kind: 'rollout.create',
      body: proposalBody(CreatePlanBody, { experimentId }, ['dryRun'], 'ProposedRolloutCreate'),
      // Without a planId the plan takes one derived from the proposal's, so the preview names it.
      view: (executor, target, body, proposalId) =>
        viewOf(executor, target, {
          experimentId: String(body.experimentId),
          planId: typeof body.planId === 'string' ? body.planId : proposedId(proposalId, 'rop'),
        }),
      async apply(trx, call) {
        const { experimentId: id, ...fields } = call.body as Record<string, unknown> & { experimentId: string };
        await rollouts.create(
          trx,
          call.principal,
          id,
          { appId: call.target.appId, env: call.target.env, ...fields } as CreatePlanInput,
          'authority',
          call.clearance,
        );
      },
    },
    {
      kind: 'rollout.transition',
      body: proposalBody(TransitionBody, { experimentId, planId }, [], 'ProposedRolloutTransition'),
      view,
      async apply(trx, call) {
        const {
          experimentId: id,
          planId: plan,
          ...fields
        } = call.body as Record<string, unknown> &
          Ids & { planVersion: number; to: TransitionTarget; step?: number; reason?: string };
        const reason = fields.reason ?? call.reason ?? undefined;
        await rollouts.transition(
          trx,
          call.principal,
          'authority',
          id,
          plan,
          { appId: call.target.appId, env: call.target.env, ...fields, ...(reason !== undefined ? { reason } : {}) },
          call.clearance,
        );
      },
    },
    {
      kind: 'rollout.approve',
      body: proposalBody(ApproveBody, { experimentId, planId }, [], 'ProposedRolloutApprove'),
      view,
      async apply(trx, call) {
        const {
          experimentId: id,
          planId: plan,
          ...fields
        } = call.body as Record<string, unknown> &
          Ids & { planVersion: number; recommendationDigest: string; reason?: string };
        const reason = fields.reason ?? call.reason ?? undefined;
        await rollouts.approve(
          trx,
          call.principal,
          'authority',
          id,
          plan,
          { appId: call.target.appId, env: call.target.env, ...fields, ...(reason !== undefined ? { reason } : {}) },
          call.clearance,
        );
      },
    },
  ];
}

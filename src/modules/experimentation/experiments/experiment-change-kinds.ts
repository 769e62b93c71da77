// The experiment moves as change kinds of the authority workflow (decision 0029): registered in
// src/app.ts, proposed with the direct route's body plus experimentId, made by the same service
// method cleared by the proposal, so an executed proposal leaves the experiment, its iteration and
// what the flag serves exactly as the direct route would.
import type { Executor } from '../../../db/transaction.js';
import { IdString } from '../../../platform/common-schemas.js';
import {
  proposalBody,
  type ChangeKindCall,
  type ChangeKindHandler,
  type ResourceView,
} from '../../core/authority/index.js';
import type { EnvironmentTarget } from '../../core/config/index.js';
import type { Experiment } from './experiments.model.js';
import type { TransitionInput } from './experiment-lifecycle.service.js';
import type { ExperimentsService, PatchExperimentInput } from './experiments.service.js';
import { IterateBody, PatchExperimentBody, RampBody, TransitionBody } from './experiments.schemas.js';

const ids = { experimentId: IdString('exp_…: the experiment') };

/** An experiment as reviewers compare it: everything but timestamps and who wrote it. */
export function stableExperiment(e: Experiment): Record<string, unknown> {
  const { createdAt: _created, updatedAt: _updated, createdBy: _by, lastTransition, currentIteration, ...rest } = e;
  const iteration = currentIteration ? (({ startedAt: _started, ...kept }) => kept)(currentIteration) : null;
  return {
    ...rest,
    lastTransition: lastTransition
      ? { from: lastTransition.from, to: lastTransition.to, reason: lastTransition.reason }
      : null,
    currentIteration: iteration,
  };
}

type Body = Record<string, unknown> & { experimentId: string };

export function experimentChangeKinds(experiments: ExperimentsService): ChangeKindHandler[] {
  const view = async (
    executor: Executor,
    target: EnvironmentTarget,
    body: Record<string, unknown>,
  ): Promise<ResourceView> => {
    const id = String(body.experimentId);
    const found = await experiments.find(executor, target, id);
    return { type: 'experiment', id, state: found ? stableExperiment(found) : null };
  };
  /** The body as the direct route's input: the proposal's environment instead of appId and env. */
  const input = <T>(call: ChangeKindCall) => {
    const { experimentId, ...fields } = call.body as Body;
    return { experimentId, input: { appId: call.target.appId, env: call.target.env, ...fields } as T };
  };

  return [
    {
      kind: 'experiment.transition',
      body: proposalBody(TransitionBody, ids, [], 'ProposedExperimentTransition'),
      view,
      async apply(trx, call) {
        const { experimentId, input: move } = input<TransitionInput>(call);
        const reason = move.reason ?? call.reason ?? undefined;
        await experiments.transition(
          trx,
          call.principal,
          experimentId,
          { ...move, ...(reason !== undefined ? { reason } : {}) },
          'authority',
          call.clearance,
        );
      },
    },
    {
      kind: 'experiment.ramp',
      body: proposalBody(RampBody, ids, [], 'ProposedExperimentRamp'),
      view,
      async apply(trx, call) {
        const { experimentId, input: move } = input<{
          appId: string;
          env: string;
          revision: number;
          allocation: number;
        }>(call);
        await experiments.ramp(trx, call.principal, experimentId, move, 'authority', call.clearance);
      },
    },
    {
      kind: 'experiment.iterate',
      body: proposalBody(IterateBody, ids, [], 'ProposedExperimentIterate'),
      view,
      async apply(trx, call) {
        const { experimentId, input: move } = input<{ appId: string; env: string; revision: number }>(call);
        await experiments.iterate(trx, call.principal, experimentId, move, 'authority', call.clearance);
      },
    },
    {
      kind: 'experiment.patch',
      body: proposalBody(PatchExperimentBody, ids, [], 'ProposedExperimentPatch'),
      view,
      async apply(trx, call) {
        const { experimentId, input: fields } = input<PatchExperimentInput>(call);
        await experiments.patch(trx, call.principal, experimentId, fields, 'authority', call.clearance);
      },
    },
  ];
}

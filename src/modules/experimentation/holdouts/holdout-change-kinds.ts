// holdout.patch as a change kind of the authority workflow (decision 0029): the PATCH route's body
// plus holdoutId, made by the same service method cleared by the proposal.
import { IdString } from '../../../platform/common-schemas.js';
import { proposalBody, type ChangeKindHandler } from '../../core/authority/index.js';
import type { Holdout } from './holdouts.model.js';
import { PatchHoldoutBody } from './holdouts.schemas.js';
import type { HoldoutsService, PatchHoldoutInput } from './holdouts.service.js';

/** A holdout as reviewers compare it: everything but timestamps and who wrote it. */
export function stableHoldout(holdout: Holdout): Record<string, unknown> {
  const { createdAt: _created, updatedAt: _updated, createdBy: _by, ...rest } = holdout;
  return rest;
}

export function holdoutChangeKinds(holdouts: HoldoutsService): ChangeKindHandler[] {
  return [
    {
      kind: 'holdout.patch',
      body: proposalBody(
        PatchHoldoutBody,
        { holdoutId: IdString('hol_…: the holdout') },
        ['dryRun'],
        'ProposedHoldoutPatch',
      ),
      async view(executor, target, body) {
        const id = String(body.holdoutId);
        const found = await holdouts.find(executor, target, id);
        return { type: 'holdout', id, state: found ? stableHoldout(found) : null };
      },
      async apply(trx, call) {
        const { holdoutId, ...fields } = call.body as Record<string, unknown> & { holdoutId: string };
        await holdouts.patch(
          trx,
          call.principal,
          holdoutId,
          { appId: call.target.appId, env: call.target.env, ...fields } as PatchHoldoutInput,
          'authority',
          call.clearance,
        );
      },
    },
  ];
}

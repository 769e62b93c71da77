// layer.patch as a change kind of the authority workflow (decision 0029): the PATCH route's body
// plus layerId, made by the same service method cleared by the proposal.
import { IdString } from '../../../platform/common-schemas.js';
import { proposalBody, type ChangeKindHandler } from '../../core/authority/index.js';
import type { Layer } from './layers.model.js';
import { PatchLayerBody } from './layers.schemas.js';
import type { LayersService, PatchLayerInput } from './layers.service.js';

/** A layer as reviewers compare it: everything but timestamps and who wrote it. */
export function stableLayer(layer: Layer): Record<string, unknown> {
  const { createdAt: _created, updatedAt: _updated, createdBy: _by, ...rest } = layer;
  return rest;
}

export function layerChangeKinds(layers: LayersService): ChangeKindHandler[] {
  return [
    {
      kind: 'layer.patch',
      body: proposalBody(PatchLayerBody, { layerId: IdString('lay_…: the layer') }, ['dryRun'], 'ProposedLayerPatch'),
      async view(executor, target, body) {
        const id = String(body.layerId);
        const found = await layers.find(executor, target, id);
        return { type: 'layer', id, state: found ? stableLayer(found) : null };
      },
      async apply(trx, call) {
        const { layerId, ...fields } = call.body as Record<string, unknown> & { layerId: string };
        await layers.patch(
          trx,
          call.principal,
          layerId,
          { appId: call.target.appId, env: call.target.env, ...fields } as PatchLayerInput,
          'authority',
          call.clearance,
        );
      },
    },
  ];
}

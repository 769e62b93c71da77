import type { FastifyPluginAsync } from 'fastify';
import type { IdempotencyService } from '../../../platform/idempotency.js';
import { registerDefinitionRoutes } from '../../../platform/definition-routes.js';
import { sourceOf } from '../../core/journal/index.js';
import type { LayersService } from './layers.service.js';
import {
  CreateLayerBody,
  LayerListResponse,
  LayerPatchResponse,
  LayerPreviewResponse,
  LayerResponse,
  PatchLayerBody,
} from './layers.schemas.js';

export interface LayersRouteDeps {
  layers: LayersService;
  idempotency: IdempotencyService;
}

export const layersRoutes: FastifyPluginAsync<LayersRouteDeps> = async (app, { layers, idempotency }) => {
  registerDefinitionRoutes(app, {
    plural: 'layers',
    singular: 'layer',
    summaries: {
      list: 'List the layers of an environment',
      create: 'Create a layer of mutually exclusive experiments, or preview one (dryRun)',
      get: 'Read one layer with its bucket allocations',
      patch: "Change a layer's name or description (version CAS), or preview the change (dryRun)",
    },
    schemas: {
      createBody: CreateLayerBody,
      patchBody: PatchLayerBody,
      record: LayerResponse,
      preview: LayerPreviewResponse,
      list: LayerListResponse,
      patched: LayerPatchResponse,
    },
    service: layers,
    idempotency,
    sourceOf,
    errors: { create: ['key_conflict'], update: ['version_conflict'] },
  });
};

import type { FastifyPluginAsync } from 'fastify';
import type { IdempotencyService } from '../../../platform/idempotency.js';
import { registerDefinitionRoutes } from '../../../platform/definition-routes.js';
import { sourceOf } from '../../core/journal/index.js';
import type { HoldoutsService } from './holdouts.service.js';
import {
  CreateHoldoutBody,
  HoldoutListResponse,
  HoldoutPatchResponse,
  HoldoutPreviewResponse,
  HoldoutResponse,
  PatchHoldoutBody,
} from './holdouts.schemas.js';

export interface HoldoutsRouteDeps {
  holdouts: HoldoutsService;
  idempotency: IdempotencyService;
}

export const holdoutsRoutes: FastifyPluginAsync<HoldoutsRouteDeps> = async (app, { holdouts, idempotency }) => {
  registerDefinitionRoutes(app, {
    plural: 'holdouts',
    singular: 'holdout',
    summaries: {
      list: 'List the holdouts of an environment',
      create:
        'Create a holdout that keeps a share of subjects out of the experiments naming it, or preview one (dryRun)',
      get: 'Read one holdout',
      patch: "Change a holdout's name, description or percentage (version CAS), or preview the change (dryRun)",
    },
    schemas: {
      createBody: CreateHoldoutBody,
      patchBody: PatchHoldoutBody,
      record: HoldoutResponse,
      preview: HoldoutPreviewResponse,
      list: HoldoutListResponse,
      patched: HoldoutPatchResponse,
    },
    service: holdouts,
    idempotency,
    sourceOf,
    errors: { create: ['key_conflict'], update: ['version_conflict', 'holdout_in_use'] },
  });
};

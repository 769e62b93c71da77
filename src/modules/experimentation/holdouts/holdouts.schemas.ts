import { Type } from '@sinclair/typebox';
import { IdString, Timestamp, Int32 } from '../../../platform/common-schemas.js';
import {
  AuthoritySchema,
  DefinitionKey,
  DescriptionString,
  DryRun,
  NameString,
} from '../../../platform/definition-schemas.js';
import { MAX_HOLDOUT_PERCENTAGE, MIN_HOLDOUT_PERCENTAGE } from './holdouts.model.js';

const Percentage = Type.Number({
  minimum: MIN_HOLDOUT_PERCENTAGE,
  maximum: MAX_HOLDOUT_PERCENTAGE,
  description: 'Share of subjects held out, 0.01 to 50 percent (two decimals).',
});

export const CreateHoldoutBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    key: DefinitionKey('Unique per environment.'),
    name: NameString,
    percentage: Percentage,
    description: Type.Optional(DescriptionString),
    dryRun: Type.Optional(DryRun),
  },
  { additionalProperties: false, title: 'HoldoutCreate' },
);

export const PatchHoldoutBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    version: Int32({
      minimum: 1,
      description:
        'Compare-and-swap: the current version (409 version_conflict with metadata.currentVersion otherwise).',
    }),
    name: Type.Optional(NameString),
    description: Type.Optional(DescriptionString),
    percentage: Type.Optional({
      ...Percentage,
      description: 'Changeable only while no running or paused experiment names the holdout (409 holdout_in_use).',
    }),
    dryRun: Type.Optional(DryRun),
  },
  { additionalProperties: false, title: 'HoldoutPatch' },
);

const holdoutFields = {
  appId: Type.String(),
  env: Type.String(),
  key: Type.String(),
  name: Type.String(),
  description: Type.String(),
  percentage: Type.Number(),
  version: Type.Integer({ minimum: 1 }),
  salt: Type.String({
    description:
      'Salt of the holdout\'s bucketing: held out when murmur3(salt + "/" + targetingKey) mod 10000 < percentage × 100.',
  }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
  createdBy: AuthoritySchema,
};

export const HoldoutSchema = Type.Object(
  { id: Type.String({ description: 'hol_…' }), ...holdoutFields },
  { title: 'Holdout' },
);
const HoldoutPreviewSchema = Type.Object(
  {
    id: Type.Union([Type.String(), Type.Null()], { description: 'null for a creation: no id is taken by a dry run.' }),
    ...holdoutFields,
  },
  { title: 'HoldoutPreview', description: 'The holdout as the request would leave it; nothing was stored.' },
);

export const HoldoutResponse = Type.Object({ holdout: HoldoutSchema });
export const HoldoutPreviewResponse = Type.Object({ preview: HoldoutPreviewSchema });
export const HoldoutListResponse = Type.Object({
  holdouts: Type.Array(HoldoutSchema, { description: 'Sorted by key.' }),
});
export const HoldoutPatchResponse = Type.Union([HoldoutResponse, HoldoutPreviewResponse], {
  description: '{ holdout } when applied; { preview } for a dry run (nothing stored).',
});

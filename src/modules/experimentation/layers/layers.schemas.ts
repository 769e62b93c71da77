import { Type } from '@sinclair/typebox';
import { IdString, Timestamp, Int32 } from '../../../platform/common-schemas.js';
import {
  AuthoritySchema,
  DefinitionKey,
  DescriptionString,
  DryRun,
  NameString,
} from '../../../platform/definition-schemas.js';

export const CreateLayerBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    key: DefinitionKey('Unique per environment.'),
    name: NameString,
    description: Type.Optional(DescriptionString),
    dryRun: Type.Optional(DryRun),
  },
  { additionalProperties: false, title: 'LayerCreate' },
);

export const PatchLayerBody = Type.Object(
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
    dryRun: Type.Optional(DryRun),
  },
  { additionalProperties: false, title: 'LayerPatch' },
);

const layerFields = {
  appId: Type.String(),
  env: Type.String(),
  key: Type.String(),
  name: Type.String(),
  description: Type.String(),
  version: Type.Integer({
    minimum: 1,
    description: 'Raised by every change, including experiments taking or releasing buckets.',
  }),
  salt: Type.String({
    description: 'Salt of the layer\'s bucketing: bucket = murmur3(salt + "/" + targetingKey) mod 10000.',
  }),
  allocations: Type.Array(
    Type.Object({
      experimentId: Type.String(),
      start: Type.Integer({ minimum: 0, maximum: 10000 }),
      end: Type.Integer({ minimum: 0, maximum: 10000, description: 'Exclusive.' }),
    }),
    { description: 'Bucket ranges [start, end) owned by experiments, sorted by start; disjoint.' },
  ),
  freeBuckets: Type.Integer({ minimum: 0, maximum: 10000 }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
  createdBy: AuthoritySchema,
};

export const LayerSchema = Type.Object(
  { id: Type.String({ description: 'lay_…' }), ...layerFields },
  { title: 'Layer' },
);
const LayerPreviewSchema = Type.Object(
  {
    id: Type.Union([Type.String(), Type.Null()], { description: 'null for a creation: no id is taken by a dry run.' }),
    ...layerFields,
  },
  { title: 'LayerPreview', description: 'The layer as the request would leave it; nothing was stored.' },
);

export const LayerResponse = Type.Object({ layer: LayerSchema });
export const LayerPreviewResponse = Type.Object({ preview: LayerPreviewSchema });
export const LayerListResponse = Type.Object({ layers: Type.Array(LayerSchema, { description: 'Sorted by key.' }) });
export const LayerPatchResponse = Type.Union([LayerResponse, LayerPreviewResponse], {
  description: '{ layer } when applied; { preview } for a dry run (nothing stored).',
});

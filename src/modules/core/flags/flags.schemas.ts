import { Type } from '@sinclair/typebox';
import { ConfigVersionNumber, IdString } from '../../../platform/common-schemas.js';
import { FLAG_KEY_DESCRIPTION, FlagRecordSchema, flagFieldSchemas } from '../config/index.js';
import { ADVANCED_FLAG_FIELDS, FLAG_PATCH_OPS } from './flags.model.js';

const FlagFields = Type.Object(flagFieldSchemas);
const ExpectedVersion = ConfigVersionNumber(
  'Compare-and-swap: apply only if the environment is at this config version (409 version_conflict otherwise).',
);
const ConfigVersion = Type.Integer({ minimum: 0, description: 'The environment config version after the request.' });
const ChangeId = Type.Union([Type.String(), Type.Null()], {
  description: 'Journal entry of the change; null when nothing changed.',
});
const FlagKey = Type.String({ description: FLAG_KEY_DESCRIPTION });

export const MAX_FLAG_PAGE = 500;
export const ListFlagsQuery = Type.Object({
  appId: IdString(),
  env: IdString(),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'Search: flags whose key or description contains this text, ignoring case.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_FLAG_PAGE,
      description: `Page size (1 to ${MAX_FLAG_PAGE}); without it every matching flag is listed.`,
    }),
  ),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, description: 'nextCursor of the previous page, with the same q.' }),
  ),
});
export const ListFlagsResponse = Type.Object({
  flags: Type.Array(FlagRecordSchema, { description: 'Sorted by key.' }),
  version: ConfigVersion,
  total: Type.Optional(
    Type.Integer({ minimum: 0, description: 'With q, limit or cursor: how many flags match q (every page together).' }),
  ),
  nextCursor: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'With q, limit or cursor: the next page, null on the last.',
    }),
  ),
});

export const PatchFlagBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    key: FlagKey,
    op: Type.Optional(
      Type.Union(
        FLAG_PATCH_OPS.map((o) => Type.Literal(o)),
        {
          description:
            'upsert (default): create or change; create: 409 flag_exists if it exists; update: 404 if missing; toggle: flip a bool flag.',
        },
      ),
    ),
    expectedVersion: Type.Optional(ExpectedVersion),
    ...Type.Partial(FlagFields).properties,
  },
  {
    additionalProperties: false,
    title: 'FlagPatch',
    description: 'A new flag needs type and value; fields given replace the current ones, the others stay.',
  },
);
export const PatchFlagResponse = Type.Object({ flag: FlagRecordSchema, version: ConfigVersion, changeId: ChangeId });

export const DeleteFlagQuery = Type.Object({
  appId: IdString(),
  env: IdString(),
  key: IdString(),
  expectedVersion: Type.Optional(ExpectedVersion),
});
export const DeleteFlagResponse = Type.Object({ version: ConfigVersion, changeId: Type.String() });

const FlagValues = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Existing flag key → new value of that flag type.',
});

export const BulkApplyBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    expectedVersion: Type.Optional(ExpectedVersion),
    idempotencyKey: Type.Optional(
      Type.String({
        pattern: '^[\\x21-\\x7e]{8,128}$',
        description: 'Or the Idempotency-Key header (both given must be equal).',
      }),
    ),
    flags: Type.Optional(FlagValues),
    advanced: Type.Optional(
      Type.Object(
        {
          flags: Type.Optional(
            Type.Record(
              Type.String(),
              Type.Object(Type.Partial(Type.Pick(FlagFields, [...ADVANCED_FLAG_FIELDS])).properties, {
                additionalProperties: false,
              }),
              { description: 'Existing flag key → fields to replace (not type or value).' },
            ),
          ),
          ttlSeconds: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 86400,
              description: 'Recommended cache time of delivered configuration.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    privacy: Type.Optional(
      Type.Object(
        {
          privateAttributes: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
              maxItems: 256,
              description: 'Replaces the list.',
            }),
          ),
          clientMetadataKeys: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
              maxItems: 256,
              description: 'Replaces the list.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'BulkApply' },
);
export const BulkApplyResponse = Type.Object({
  version: ConfigVersion,
  changeId: ChangeId,
  updated: Type.Array(Type.String(), { description: 'Keys of the flags that changed, sorted.' }),
  replay: Type.Object({
    idempotencyKey: Type.Union([Type.String(), Type.Null()]),
    replayed: Type.Boolean({ description: 'True when this is the stored answer of an earlier identical request.' }),
    firstAppliedAt: Type.String({ format: 'date-time' }),
  }),
});

export const LegacyBulkBody = Type.Object(
  { appId: IdString(), env: IdString(), flags: FlagValues },
  { additionalProperties: false, title: 'LegacyBulkApply' },
);
export const LegacyBulkResponse = Type.Object({ version: ConfigVersion, updated: Type.Array(Type.String()) });

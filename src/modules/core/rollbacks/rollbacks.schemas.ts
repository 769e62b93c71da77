import { Type } from '@sinclair/typebox';
import { IdString, ConfigVersionNumber } from '../../../platform/common-schemas.js';
import { DiffEntrySchema } from '../journal/index.js';
import { DependencySchema } from '../config/index.js';

const Version = (description: string) => ConfigVersionNumber(description);
const Digest = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });

export const RollbackScopeSchema = Type.Object(
  {
    flags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 1000,
        description: 'Flag keys to restore (a flag absent at the target version is deleted).',
      }),
    ),
    advanced: Type.Optional(
      Type.Boolean({
        description:
          'Restore the advanced configuration (settings such as ttlSeconds, and every section other than flags and privacy).',
      }),
    ),
    privacy: Type.Optional(Type.Boolean({ description: 'Restore the privacy settings.' })),
  },
  {
    additionalProperties: false,
    title: 'RollbackScope',
    description:
      'What to restore. Absent: everything. Given: only what it names (flags absent = none; advanced and privacy default to false).',
  },
);

/** The fields a rollback request has besides appId, env, expectedVersion and the idempotency key (what a proposal carries). */
export const rollbackRequestFields = {
  targetVersion: Version('The retained version to restore.'),
  scope: Type.Optional(RollbackScopeSchema),
};

export const RollbackPlanBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    ...rollbackRequestFields,
    expectedVersion: Version("Compare-and-swap: the environment's current version (409 version_conflict otherwise)."),
  },
  { additionalProperties: false, title: 'RollbackRequest' },
);

export const RollbackPlanSchema = Type.Object(
  {
    appId: Type.String(),
    env: Type.String(),
    fromVersion: Type.Integer({ description: 'The current version the plan starts from.' }),
    targetVersion: Type.Integer(),
    resultVersion: Type.Integer({
      description: 'The version applying the plan creates (fromVersion when nothing changes).',
    }),
    scope: Type.Object(
      {
        flags: Type.Union([Type.Array(Type.String()), Type.Null()], {
          description: 'Sorted flag keys; null: every flag.',
        }),
        advanced: Type.Boolean(),
        privacy: Type.Boolean(),
      },
      { description: 'The scope as applied.' },
    ),
    changes: Type.Array(DiffEntrySchema, {
      description: 'Current state → restored state, in the config-versions diff format and order.',
    }),
    dependencies: Type.Array(
      Type.Object({ key: Type.String(), before: Type.Array(DependencySchema), after: Type.Array(DependencySchema) }),
    ),
    visibility: Type.Array(Type.Object({ key: Type.String(), before: Type.Boolean(), after: Type.Boolean() })),
    warnings: Type.Array(Type.String()),
    fromState: Digest('SHA-256 of the canonical JSON of the current state.'),
    toState: Digest('SHA-256 of the canonical JSON of the restored state.'),
    digest: Digest('SHA-256 of the canonical JSON of the plan without this field: apply must present it.'),
  },
  { title: 'RollbackPlan' },
);

export const RollbackPlanResponse = Type.Object({ plan: RollbackPlanSchema });

export const RollbackApplyBody = Type.Object(
  {
    ...RollbackPlanBody.properties,
    planDigest: Digest('The digest of the reviewed plan (409 plan_conflict when the recomputed plan differs).'),
    idempotencyKey: Type.Optional(
      Type.String({
        pattern: '^[\\x21-\\x7e]{8,128}$',
        description: 'Required here or as the Idempotency-Key header (both given must be equal).',
      }),
    ),
    reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Recorded in the journal entry.' })),
  },
  { additionalProperties: false, title: 'RollbackApply' },
);

export const RollbackApplyResponse = Type.Object({
  version: Type.Integer({
    minimum: 0,
    description: 'The new version, or the unchanged current one when the plan has no changes.',
  }),
  changeId: Type.Union([Type.String(), Type.Null()], {
    description: 'Journal entry of the rollback; null when nothing changed.',
  }),
  plan: RollbackPlanSchema,
  replay: Type.Object({
    idempotencyKey: Type.String(),
    replayed: Type.Boolean({ description: 'True when this is the stored answer of an earlier identical request.' }),
    firstAppliedAt: Type.String({ format: 'date-time' }),
  }),
});

import { Type, type TObject } from '@sinclair/typebox';
import { CAPABILITIES } from '../../../platform/app-access.js';
import { IdString, ConfigVersionNumber } from '../../../platform/common-schemas.js';
import { DiffEntrySchema } from '../journal/index.js';
import { PROPOSAL_STATUSES } from './authority.model.js';

const Digest = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });
const Time = Type.String({ format: 'date-time' });
const EnvSlug = Type.String({ minLength: 1, maxLength: 128 });

const AuthoritySchema = Type.Object({
  type: Type.Union([Type.Literal('user'), Type.Literal('admin_key'), Type.Literal('system')]),
  userId: Type.Optional(Type.String()),
  keyFingerprint: Type.Optional(Type.String()),
});

const CapabilitySchema = Type.Union(CAPABILITIES.map((c) => Type.Literal(c)));

export const TokenBody = Type.Object(
  {
    capabilities: Type.Array(CapabilitySchema, {
      minItems: 1,
      maxItems: 5,
      description: "The token holds these, intersected with its user's current role in each app.",
    }),
    appIds: Type.Array(IdString(), {
      minItems: 1,
      maxItems: 20,
      description: 'Apps the token reaches (each must be one its user reaches: 403 otherwise).',
    }),
    envs: Type.Optional(
      Type.Array(EnvSlug, {
        minItems: 1,
        maxItems: 20,
        description: 'Environment slugs the token reaches; absent: all.',
      }),
    ),
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400, default: 3600 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false, title: 'ScopedTokenRequest' },
);

export const TokenResponse = Type.Object({
  token: Type.String({ pattern: '^cli_', description: 'Shown once.' }),
  id: Type.String(),
  capabilities: Type.Array(CapabilitySchema),
  appIds: Type.Array(Type.String()),
  envs: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every environment.' }),
  expiresAt: Time,
});

export const ApprovalSchema = Type.Object(
  {
    id: Type.String({ description: 'apv_…' }),
    proposalId: Type.String(),
    digest: Type.String(),
    approvedBy: Type.String({ description: 'User id.' }),
    comment: Type.Union([Type.String(), Type.Null()]),
    createdAt: Time,
  },
  { title: 'Approval' },
);

export const ReceiptSchema = Type.Object(
  {
    id: Type.String({ description: 'rcp_…' }),
    proposalId: Type.String(),
    digest: Type.String(),
    appliedVersion: Type.Integer(),
    changeId: Type.Union([Type.String(), Type.Null()], {
      description: 'Journal entry; null when the change was a no-op.',
    }),
    stateDigest: Digest('SHA-256 of the canonical JSON of the state read back after applying.'),
    approvals: Type.Array(ApprovalSchema),
    executedBy: AuthoritySchema,
    executedAt: Time,
  },
  { title: 'Receipt' },
);

const PreviewedResourceSchema = Type.Object(
  {
    type: Type.String({ description: 'experiment, rollout_plan, layer or holdout.' }),
    id: Type.String(),
    before: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'The resource when proposed (null: it does not exist yet).',
    }),
    after: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'The resource as executing leaves it; execution reads it back and compares.',
    }),
  },
  {
    description:
      'Kinds beyond flags: the resource the change acts on, stable fields only (no timestamps). Read back at execution (409 readback_mismatch when it differs); the proposal is stale once the resource moves.',
  },
);

/** The schemas naming every change kind: core's and those registered by the modules above it. */
export function proposalSchemas(bodies: Record<string, TObject>) {
  const kinds = Object.keys(bodies);
  const ChangeSchema = Type.Union(
    kinds.map((kind) =>
      Type.Object({ kind: Type.Literal(kind), body: bodies[kind]! }, { additionalProperties: false }),
    ),
    {
      description:
        "The change, as the body of its route without appId, env, expectedVersion and idempotency key, with the target's ids (experimentId, planId, layerId, holdoutId).",
    },
  );

  const ProposeBody = Type.Object(
    {
      appId: IdString(),
      env: IdString(),
      baseVersion: ConfigVersionNumber("The environment's current version (409 version_conflict otherwise)."),
      // The body is checked against its kind's schema by the service, so the 400 names the same
      // paths as the direct route would (a schema union would report every alternative).
      change: Type.Object(
        {
          kind: Type.Union(kinds.map((k) => Type.Literal(k))),
          body: Type.Object(
            {},
            {
              additionalProperties: true,
              description:
                'The body of the kind (see Proposal.change): flag.patch: PATCH /api/v1/flags body; flag.delete: { key }; bulk.apply: PATCH /api/v1/flags/bulk body; ' +
                'rollback.apply: { targetVersion, scope?, planDigest, reason? }; experiment.transition: { experimentId, revision, to, winner?, reason? }; ' +
                'experiment.ramp: { experimentId, revision, allocation }; experiment.iterate: { experimentId, revision }; experiment.patch: { experimentId, revision, …fields }; ' +
                'layer.patch: { layerId, version, name?, description? }; holdout.patch: { holdoutId, version, name?, description?, percentage? }; ' +
                'rollout.create: { experimentId, planId?, variant, steps, guardrails, minimumUnitsPerStep? }; rollout.transition: { experimentId, planId, planVersion, to, step?, reason? }; ' +
                'rollout.approve: { experimentId, planId, planVersion, recommendationDigest, reason? }.',
            },
          ),
        },
        { additionalProperties: false },
      ),
      reason: Type.Optional(Type.String({ maxLength: 1000 })),
      expiresInSeconds: Type.Optional(Type.Integer({ minimum: 300, maximum: 604800, default: 604800 })),
    },
    { additionalProperties: false, title: 'ProposeRequest' },
  );

  const ProposalSchema = Type.Object(
    {
      id: Type.String({ description: 'prp_…' }),
      appId: Type.String(),
      env: Type.String(),
      baseVersion: Type.Integer(),
      change: ChangeSchema,
      preview: Type.Object({
        resultVersion: Type.Integer({
          description: 'The version executing creates (baseVersion when nothing changes).',
        }),
        changes: Type.Array(DiffEntrySchema, {
          description: 'baseVersion → result, in the config-versions diff format.',
        }),
        resource: Type.Optional(PreviewedResourceSchema),
      }),
      digest: Digest(
        'SHA-256 of the canonical JSON of the proposal without this field; approve and execute must present it.',
      ),
      proposedBy: AuthoritySchema,
      requiredApprovals: Type.Integer({
        description: "The environment's policy when proposed (execution checks the policy then in force).",
      }),
      reason: Type.Union([Type.String(), Type.Null()]),
      createdAt: Time,
      expiresAt: Time,
    },
    { title: 'Proposal' },
  );

  const ProposeResponse = Type.Object({ proposal: ProposalSchema });

  const ProposalViewSchema = Type.Object(
    {
      proposal: ProposalSchema,
      approvals: Type.Array(ApprovalSchema),
      receipt: Type.Union([ReceiptSchema, Type.Null()]),
      status: Type.Union(
        PROPOSAL_STATUSES.map((s) => Type.Literal(s)),
        {
          description:
            'Derived now: executed, expired, stale (the environment moved past baseVersion, or the resource a change acts on moved), approved, open.',
        },
      ),
    },
    { title: 'ProposalView' },
  );

  const ListProposalsResponse = Type.Object({
    proposals: Type.Array(ProposalViewSchema, { description: 'Newest first.' }),
  });
  return { ProposeBody, ProposeResponse, ListProposalsResponse, ShowProposalResponse: ProposalViewSchema };
}

export const ListProposalsQuery = Type.Object({
  appId: IdString(),
  env: IdString(),
  status: Type.Optional(Type.Union(PROPOSAL_STATUSES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
});
export const ProposalParams = Type.Object({ id: IdString() });
export const ShowProposalQuery = Type.Object({ appId: IdString() });

export const ApproveBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    proposalId: IdString(),
    digest: Digest('The proposal digest you reviewed.'),
    comment: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false, title: 'ApproveRequest' },
);
export const ApproveResponse = Type.Object({ approval: ApprovalSchema });

export const ExecuteBody = Type.Object(
  { appId: IdString(), env: IdString(), proposalId: IdString(), digest: Digest('The proposal digest.') },
  { additionalProperties: false, title: 'ExecuteRequest' },
);
export const ExecuteResponse = Type.Object({ receipt: ReceiptSchema });

export const ReadbackBody = Type.Object(
  { appId: IdString(), env: IdString(), receiptId: IdString() },
  { additionalProperties: false, title: 'ReadbackRequest' },
);
export const ReadbackResponse = Type.Object({
  receipt: ReceiptSchema,
  observation: Type.Object({
    currentVersion: Type.Integer(),
    servedVersion: Type.Integer({ description: 'The version delivery serves now.' }),
    appliedStateDigest: Type.String(),
    currentStateDigest: Type.String(),
    inEffect: Type.Boolean({ description: 'The live state still equals what the receipt applied.' }),
    superseded: Type.Boolean({ description: 'A later version exists.' }),
    observedAt: Time,
  }),
});

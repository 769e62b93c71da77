// Wire shapes of rollout plans (issue 12).
import { Type } from '@sinclair/typebox';
import { IdString, Timestamp, Int32 } from '../../../platform/common-schemas.js';
import { AuthoritySchema, Literals } from '../../../platform/definition-schemas.js';
import { PLAN_STATES, RECOMMENDATION_KINDS, TRANSITION_TARGETS } from './rollouts.model.js';

const strict = { additionalProperties: false } as const;
const Reason = Type.String({
  maxLength: 1000,
  description:
    'Why, journaled. Required in a protected environment for a stop (to: paused or cancelled; approving a recommended pause or rollback): 400 without.',
});
const PlanVersion = Int32({ minimum: 1, description: 'The plan version you read (compare-and-swap)' });

export const PlanParams = Type.Object({ id: IdString(), planId: Type.String({ minLength: 1, maxLength: 128 }) });

const Step = Type.Object(
  {
    percentage: Type.Number({
      exclusiveMinimum: 0,
      maximum: 100,
      multipleOf: 0.01,
      description: "Share of the flag's subjects (outside the experiment) served the variant",
    }),
    minDurationHours: Type.Number({ minimum: 0, maximum: 8760 }),
  },
  strict,
);

const Guardrail = Type.Object(
  {
    metricId: IdString(),
    revision: Int32({ minimum: 1 }),
    maxRelativeDegradation: Type.Number({ exclusiveMinimum: 0, maximum: 10, description: 'A fraction: 0.05 is 5 %' }),
  },
  strict,
);

export const CreatePlanBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    planId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: '^[\\x21-\\x7e]+$',
        description: "Caller-stable id; becomes the plan's id",
      }),
    ),
    dryRun: Type.Optional(Type.Boolean({ description: 'Validate and answer 200 with the plan, storing nothing' })),
    variant: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The experiment variant to roll out (not the control)',
    }),
    steps: Type.Array(Step, { minItems: 1, maxItems: 20, description: 'Increasing percentages ending at 100' }),
    guardrails: Type.Array(Guardrail, { maxItems: 20 }),
    minimumUnitsPerStep: Type.Optional(Int32({ minimum: 1, maximum: 1e9 })),
  },
  strict,
);

export const TransitionBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    planVersion: PlanVersion,
    to: Literals(TRANSITION_TARGETS),
    step: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 19,
        description: 'With to: active, the step to serve (default: the current one, or 0)',
      }),
    ),
    reason: Type.Optional(Reason),
  },
  strict,
);

export const RecommendBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    planVersion: PlanVersion,
    confirm: Type.Optional(
      Type.Boolean({ description: 'Store the recommendation on the plan (planVersion + 1) so it can be approved' }),
    ),
  },
  strict,
);

export const ApproveBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    planVersion: PlanVersion,
    recommendationDigest: Type.String({ minLength: 1, maxLength: 128 }),
    reason: Type.Optional(Reason),
  },
  strict,
);

const RecommendationSchema = Type.Object({
  kind: Literals(RECOMMENDATION_KINDS),
  reasons: Type.Array(Type.String()),
  evidence: Type.Record(Type.String(), Type.Unknown()),
  digest: Type.String(),
  evaluatedAt: Timestamp(),
  planVersion: Type.Integer(),
  approvedAt: Type.Optional(Timestamp()),
});

const PlanEventSchema = Type.Object({
  at: Timestamp(),
  action: Literals(['created', 'transition', 'recommendation', 'approval']),
  from: Type.Optional(Literals(PLAN_STATES)),
  to: Type.Optional(Literals(PLAN_STATES)),
  step: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  configVersion: Type.Optional(Type.Integer()),
  recommendation: Type.Optional(Literals(RECOMMENDATION_KINDS)),
  reason: Type.Optional(Type.String()),
  by: AuthoritySchema,
});

export const PlanSchema = Type.Object({
  id: Type.String({ description: "rop_… or the caller's planId" }),
  appId: Type.String(),
  env: Type.String(),
  experimentId: Type.String(),
  flagKey: Type.String(),
  iterationId: Type.String(),
  planVersion: Type.Integer(),
  state: Literals(PLAN_STATES),
  variant: Type.String(),
  steps: Type.Array(Step),
  guardrails: Type.Array(Guardrail),
  minimumUnitsPerStep: Type.Union([Type.Integer(), Type.Null()]),
  currentStep: Type.Union([Type.Integer(), Type.Null()]),
  stepStartedAt: Type.Union([Timestamp(), Type.Null()]),
  baseVersion: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The config version an approved rollback restores the flag to',
  }),
  recommendation: Type.Union([RecommendationSchema, Type.Null()]),
  history: Type.Array(PlanEventSchema),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
  createdBy: AuthoritySchema,
});

export const PlanResponse = Type.Object({ plan: PlanSchema });
export const PreviewResponse = Type.Object({ plan: PlanSchema, dryRun: Type.Literal(true) });
export const PlanListResponse = Type.Object({ plans: Type.Array(PlanSchema) });
export const RecommendResponse = Type.Object({ recommendation: RecommendationSchema, plan: PlanSchema });
export const ApproveResponse = Type.Object({
  plan: PlanSchema,
  configVersion: Type.Union([Type.Integer(), Type.Null()]),
});

import { Type } from '@sinclair/typebox';
import { IdString, Nullable, Timestamp } from '../../../platform/common-schemas.js';
import { SERVING_SHAPES } from './cleanup.model.js';

/** The seed's limit for cleanup bodies. */
export const CLEANUP_BODY_LIMIT = 256 * 1024;

const FlagKey = Type.String({ minLength: 1, maxLength: 128, description: 'A flag key as the code names it.' });

const CodeReference = Type.Object(
  {
    flagKey: FlagKey,
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'File that reads the flag.' })),
    line: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
  },
  { additionalProperties: false },
);

export const CleanupBody = Type.Object(
  {
    appId: IdString(),
    envs: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        minItems: 1,
        maxItems: 20,
        description: 'Environment slugs; default every environment of the app.',
      }),
    ),
    staleAfterDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3650,
        default: 30,
        description: 'How long a flag must have served one value, unchanged and unevaluated, to be ready for removal.',
      }),
    ),
    codeReferences: Type.Optional(
      Type.Array(CodeReference, {
        maxItems: 20_000,
        description:
          'Where the code reads flags (from a code scan). Without it, reconcile cannot name unreferenced flags.',
      }),
    ),
    now: Type.Optional(Timestamp('Judge staleness as of this instant (past or future); default now.')),
  },
  { additionalProperties: false },
);

const LastChange = Type.Object({
  at: Timestamp(),
  changeId: Nullable(
    Type.String({
      description: "Journal entry id; null when older than the journal scan (the flag record's updatedAt is used).",
    }),
  ),
  operation: Nullable(Type.String()),
});

const Blocker = Type.Object({ code: Type.String(), message: Type.String(), env: Type.Optional(Type.String()) });

const ServingShape = Type.Union(SERVING_SHAPES.map((s) => Type.Literal(s)));

const PlanStep = Type.Union([
  Type.Object({
    stage: Type.Literal('make_static'),
    env: Type.String(),
    flagKey: Type.String(),
    value: Type.Unknown({ description: 'The value to serve statically: what every subject gets today.' }),
  }),
  Type.Object({
    stage: Type.Literal('remove_code_references'),
    flagKey: Type.String(),
    references: Type.Array(CodeReference),
  }),
  Type.Object({ stage: Type.Literal('delete_flag'), flagKey: Type.String(), envs: Type.Array(Type.String()) }),
]);

export const CleanupResponse = Type.Object({
  asOf: Timestamp('The instant staleness was judged at.'),
  staleAfterDays: Type.Integer(),
  envs: Type.Array(Type.String()),
  inventory: Type.Array(
    Type.Object({
      flagKey: Type.String(),
      env: Type.String(),
      type: Type.String(),
      value: Type.Unknown({ description: "The flag's default value." }),
      enabled: Type.Boolean(),
      servingShape: ServingShape,
      servedValue: Type.Unknown({
        description: 'The one value every subject gets (static, fully rolled out); null otherwise.',
      }),
      servesSingleValue: Type.Boolean(),
      lastChange: Type.Union([LastChange, Type.Null()]),
      evaluations: Type.Object({
        count: Type.Integer({ description: 'Evaluations (telemetry decision events) within staleAfterDays.' }),
        lastSeenAt: Nullable(Timestamp('Start of the newest hour with an evaluation (rollups are hourly).')),
      }),
      dependents: Type.Array(Type.String(), { description: 'Flags of this environment naming it as a prerequisite.' }),
      experiments: Type.Array(Type.String(), { description: 'Running or paused experiments on it.' }),
      rolloutPlans: Type.Array(Type.String(), { description: 'Unfinished rollout plans on it.' }),
    }),
  ),
  reconcile: Type.Object({
    missingInService: Type.Array(Type.Object({ flagKey: Type.String(), references: Type.Array(CodeReference) })),
    unreferencedInCode: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'Null when no codeReferences were sent.',
    }),
    inconsistentAcrossEnvs: Type.Array(
      Type.Object({
        flagKey: Type.String(),
        environments: Type.Array(Type.Object({ env: Type.String(), type: Type.String(), value: Type.Unknown() })),
      }),
    ),
  }),
  readiness: Type.Array(
    Type.Object({
      flagKey: Type.String(),
      ready: Type.Boolean(),
      reasons: Type.Array(Type.String()),
      blockers: Type.Array(Blocker),
    }),
  ),
  plan: Type.Object({
    stages: Type.Array(
      Type.Object({
        stage: Type.Union([
          Type.Literal('make_static'),
          Type.Literal('remove_code_references'),
          Type.Literal('delete_flag'),
        ]),
        steps: Type.Array(PlanStep),
      }),
    ),
    digest: Type.String({
      description: 'SHA-256 of the canonical stages: the same input gives the same plan and digest.',
    }),
  }),
});

// Wire shapes of results, recompute and aggregation runs (issue 12; the recompute body and the result
// query are the seed's, strict).
import { Type } from '@sinclair/typebox';
import { IdString, Timestamp, Int32, SafeInteger } from '../../../platform/common-schemas.js';
import { Literals } from '../../../platform/definition-schemas.js';

const strict = { additionalProperties: false } as const;

export const ResultsQuery = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    iterationId: IdString('The iteration (experiment.currentIteration.id)'),
    iterationRevision: Int32({ minimum: 1 }),
  },
  strict,
);

export const RunParams = Type.Object({ id: IdString(), runId: IdString() });

const WatermarkSchema = Type.Object({
  receivedAt: SafeInteger({ minimum: 0, description: 'Unix ms at which the newest included event was received' }),
  eventId: Type.String({ description: 'Id of the newest included event' }),
});

export const RecomputeBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    iterationId: IdString(),
    iterationRevision: Int32({ minimum: 1 }),
    analysisEngineVersion: Type.Literal('descriptive-v1'),
    idempotencyKey: Type.String({ minLength: 16, maxLength: 128 }),
    confirm: Type.Literal(true),
    priorWatermark: Type.Optional(
      Type.Object(
        {
          receivedAt: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
          eventId: Type.String({ minLength: 1, maxLength: 128 }),
        },
        strict,
      ),
    ),
  },
  strict,
);

export const RunSchema = Type.Object({
  id: Type.String({ description: 'run_…' }),
  state: Literals(['queued', 'running', 'succeeded', 'failed', 'superseded']),
  cause: Literals(['schedule', 'recompute', 'iteration_change']),
  watermark: Type.Union([WatermarkSchema, Type.Null()]),
  startedAt: Type.Union([Timestamp(), Type.Null()]),
  finishedAt: Type.Union([Timestamp(), Type.Null()]),
  diagnostics: Type.Array(Type.String(), { maxItems: 20 }),
  remediation: Type.Union([Type.String(), Type.Null()]),
});

export const RunResponse = Type.Object({ run: RunSchema });
export const RecomputeResponse = Type.Object({ run: RunSchema, replayed: Type.Boolean() });

const Effect = Type.Union([
  Type.Object({
    effect: Type.Number(),
    standardError: Type.Number(),
    ci: Type.Tuple([Type.Number(), Type.Number()]),
    pValue: Type.Number(),
  }),
  Type.Null(),
]);

const Comparison = Type.Object({
  metricId: Type.String(),
  variant: Type.String({ description: 'The treatment compared with control' }),
  absolute: Effect,
  relative: Effect,
  unavailable: Type.Optional(
    Literals(['zero_variance', 'baseline_zero', 'mismatched_statistics', 'out_of_range'], {
      description: 'Why an effect is null; out_of_range: the effect or its interval is too large to represent',
    }),
  ),
});

const HealthStatus = Literals(['healthy', 'unhealthy', 'not_enough_data']);

export const ResultsResponse = Type.Object({
  experimentId: Type.String(),
  iterationId: Type.String(),
  iterationRevision: Type.Integer(),
  analysisEngineVersion: Type.Literal('descriptive-v1'),
  aggregate: Type.Object({
    runId: Type.String(),
    pinnedAt: Timestamp(),
    watermark: WatermarkSchema,
    variants: Type.Array(
      Type.Object({
        key: Type.String(),
        units: Type.Integer(),
        metrics: Type.Record(
          Type.String(),
          Type.Object({ n: Type.Integer(), mean: Type.Number(), variance: Type.Number() }),
        ),
      }),
    ),
  }),
  inference: Type.Object({
    fixedHorizon: Type.Array(Comparison),
    sequential: Type.Optional(
      Type.Array(Comparison, { description: 'Present when the experiment uses sequential analysis' }),
    ),
  }),
  analysisDecision: Literals(['guardrail_violation', 'not_ready', 'evidence_qualified', 'continue'], {
    description:
      "Information for people, nothing acts on it: guardrail_violation (a guardrail is breached in some treatment; first, whatever else holds), not_ready (too few units, or health fails), evidence_qualified (the primary metric's interval excludes 0), continue.",
  }),
  health: Type.Object({
    srm: Type.Object({
      pValue: Type.Number(),
      chiSquare: Type.Number(),
      degreesOfFreedom: Type.Integer(),
      status: HealthStatus,
    }),
    multipleExposures: Type.Object({ count: Type.Integer(), rate: Type.Number(), status: HealthStatus }),
    guardrails: Type.Array(
      Type.Object({
        metricId: Type.String(),
        variant: Type.String(),
        ci: Type.Union([Type.Tuple([Type.Number(), Type.Number()]), Type.Null()]),
        maxRelativeDegradation: Type.Number(),
        status: Literals(['breached', 'within', 'unknown']),
      }),
    ),
  }),
  freshness: Type.Object({ computedAt: Timestamp(), lagSeconds: Type.Integer({ minimum: 0 }) }),
  diagnostics: Type.Array(Type.String(), { maxItems: 20 }),
});

// Wire shapes of baselines and power analysis (issue 12).
import { Type } from '@sinclair/typebox';
import { IdString, SafeInteger, Timestamp } from '../../../platform/common-schemas.js';

const strict = { additionalProperties: false } as const;
/** A metric's mean is a mean of outcome values, which are at most 10^15 in magnitude. */
const MAX_MEAN = 1e15;
/** Its per-unit variance is then at most the square of that. */
const MAX_VARIANCE = 1e30;
const Mean = (description?: string) =>
  Type.Number({
    minimum: -MAX_MEAN,
    maximum: MAX_MEAN,
    description: description ?? 'At most 10^15 in magnitude (the bound of outcome values).',
  });
const Variance = (description?: string) =>
  Type.Number({ minimum: 0, maximum: MAX_VARIANCE, description: description ?? 'Per-unit variance, 0 to 10^30.' });

const Window = Type.Object(
  { from: Timestamp('Start, inclusive'), to: Timestamp('End, exclusive; after from') },
  strict,
);
const Values = Type.Object(
  {
    units: SafeInteger({ minimum: 0, maximum: 1e12 }),
    mean: Mean(),
    variance: Variance(),
  },
  strict,
);

export const CaptureBaselineBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    metricId: IdString("The experiment's primary metric"),
    metricRevision: SafeInteger({ minimum: 1 }),
    window: Window,
    source: Type.Union([Type.Literal('telemetry'), Type.Literal('manual')]),
    values: Type.Optional(Values),
  },
  strict,
);

export const BaselineSchema = Type.Object({
  id: Type.String({ description: 'bsl_…' }),
  version: Type.Integer({ minimum: 1 }),
  metricId: Type.String(),
  metricRevision: Type.Integer(),
  window: Type.Object({ from: Timestamp(), to: Timestamp() }),
  units: Type.Integer(),
  mean: Type.Number(),
  variance: Type.Number(),
  source: Type.Union([Type.Literal('telemetry'), Type.Literal('manual')]),
  capturedAt: Timestamp(),
});

export const BaselineResponse = Type.Object({ baseline: BaselineSchema });
export const BaselineListResponse = Type.Object({ baselines: Type.Array(BaselineSchema) });

export const PowerAnalysisBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    experimentId: Type.Optional(IdString('Defaults variants, alpha and sequential settings from this experiment')),
    metric: Type.Optional(
      Type.Object(
        {
          kind: Type.Union([
            Type.Literal('count'),
            Type.Literal('mean'),
            Type.Literal('proportion'),
            Type.Literal('ratio'),
          ]),
          mean: Mean(
            "A proportion's rate, strictly between 0 and 1; otherwise non-zero and at most 10^15 in magnitude.",
          ),
          variance: Type.Optional(
            Variance(
              'Per-unit variance, > 0 and at most 10^30; required unless kind is proportion, whose variance is p(1 − p) (a different one is refused).',
            ),
          ),
        },
        strict,
      ),
    ),
    baselineId: Type.Optional(IdString('A stored baseline (bsl_…); an inline metric must then agree with it')),
    mde: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1000,
      description:
        'Relative minimum detectable effect (0.05 = 5 %), at most 1000; a plan needing more than 10^15 units is refused',
    }),
    alpha: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
    power: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'Default 0.8' })),
    variants: Type.Optional(
      SafeInteger({
        minimum: 2,
        maximum: 10,
        description: "Count including control; default the experiment's, else 2",
      }),
    ),
    unitsPerDay: Type.Number({ exclusiveMinimum: 0, maximum: 1e15, description: 'All variants together' }),
    plannedUnits: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 1e15, description: 'All variants together' }),
    ),
    sequential: Type.Optional(Type.Boolean()),
  },
  strict,
);

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const PowerAnalysisResponse = Type.Object({
  readiness: Type.Union([Type.Literal('ready'), Type.Literal('unsupported'), Type.Literal('invalid')]),
  reasons: Type.Array(Type.String()),
  requiredUnits: Type.Union([Type.Object({ perVariant: Type.Number(), total: Type.Number() }), Type.Null()]),
  durationDays: NullableNumber,
  assumptions: Type.Object({
    alpha: Type.Number(),
    power: Type.Number(),
    variants: Type.Number(),
    mean: Type.Number(),
    variance: Type.Number(),
    mde: Type.Number(),
    twoSided: Type.Boolean(),
    sequentialTuning: NullableNumber,
  }),
  sensitivity: Type.Array(
    Type.Object({ mde: Type.Number(), requiredUnits: Type.Number(), durationDays: Type.Number() }),
  ),
  atPlannedUnits: Type.Optional(Type.Object({ power: Type.Number(), mde: NullableNumber })),
  snapshot: Type.Object({
    source: Type.Union([Type.Literal('inline'), Type.Literal('baseline')]),
    baselineId: Type.Optional(Type.String()),
    version: Type.Optional(Type.Integer()),
    capturedAt: Type.Optional(Timestamp()),
    freshness: Type.Object({ ageDays: Type.Number(), stale: Type.Boolean() }),
  }),
});

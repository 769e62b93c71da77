// Wire shapes of baselines and power analysis (issue 12).
import { Type } from '@sinclair/typebox';
import { IdString, Timestamp } from '../../../platform/common-schemas.js';

const strict = { additionalProperties: false } as const;
const Finite = (options: Record<string, unknown> = {}) => Type.Number(options);

const Window = Type.Object({ from: Timestamp('Start, inclusive'), to: Timestamp('End, exclusive; after from') }, strict);
const Values = Type.Object({
  units: Type.Integer({ minimum: 0, maximum: 1e12 }),
  mean: Finite(),
  variance: Finite({ minimum: 0 }),
}, strict);

export const CaptureBaselineBody = Type.Object({
  appId: IdString(), env: IdString(),
  metricId: IdString('The experiment\'s primary metric'),
  metricRevision: Type.Integer({ minimum: 1 }),
  window: Window,
  source: Type.Union([Type.Literal('telemetry'), Type.Literal('manual')]),
  values: Type.Optional(Values),
}, strict);

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

export const PowerAnalysisBody = Type.Object({
  appId: IdString(), env: IdString(),
  experimentId: Type.Optional(IdString('Defaults variants, alpha and sequential settings from this experiment')),
  metric: Type.Optional(Type.Object({
    kind: Type.Union([Type.Literal('count'), Type.Literal('mean'), Type.Literal('proportion'), Type.Literal('ratio')]),
    mean: Finite(),
    variance: Finite(),
  }, strict)),
  baselineId: Type.Optional(IdString('A stored baseline (bsl_…); an inline metric must then agree with it')),
  mde: Type.Number({ exclusiveMinimum: 0, description: 'Relative minimum detectable effect (0.05 = 5 %)' }),
  alpha: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
  power: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'Default 0.8' })),
  variants: Type.Optional(Type.Integer({ minimum: 2, maximum: 10, description: 'Count including control; default the experiment\'s, else 2' })),
  unitsPerDay: Type.Number({ exclusiveMinimum: 0, description: 'All variants together' }),
  plannedUnits: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e15, description: 'All variants together' })),
  sequential: Type.Optional(Type.Boolean()),
}, strict);

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const PowerAnalysisResponse = Type.Object({
  readiness: Type.Union([Type.Literal('ready'), Type.Literal('unsupported'), Type.Literal('invalid')]),
  reasons: Type.Array(Type.String()),
  requiredUnits: Type.Union([Type.Object({ perVariant: Type.Number(), total: Type.Number() }), Type.Null()]),
  durationDays: NullableNumber,
  assumptions: Type.Object({
    alpha: Type.Number(), power: Type.Number(), variants: Type.Number(), mean: Type.Number(), variance: Type.Number(), mde: Type.Number(),
    twoSided: Type.Boolean(), sequentialTuning: NullableNumber,
  }),
  sensitivity: Type.Array(Type.Object({ mde: Type.Number(), requiredUnits: Type.Number(), durationDays: Type.Number() })),
  atPlannedUnits: Type.Optional(Type.Object({ power: Type.Number(), mde: NullableNumber })),
  snapshot: Type.Object({
    source: Type.Union([Type.Literal('inline'), Type.Literal('baseline')]),
    baselineId: Type.Optional(Type.String()),
    version: Type.Optional(Type.Integer()),
    capturedAt: Type.Optional(Timestamp()),
    freshness: Type.Object({ ageDays: Type.Number(), stale: Type.Boolean() }),
  }),
});

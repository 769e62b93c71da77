import { Type } from '@sinclair/typebox';
import { IdString, Timestamp, Int32, SafeInteger } from '../../../platform/common-schemas.js';
import {
  AuthoritySchema,
  DefinitionKey,
  DescriptionString,
  Literals,
  NameString,
} from '../../../platform/definition-schemas.js';
import { ConditionSchema, FLAG_KEY_DESCRIPTION, VariantSchema } from '../../core/config/index.js';
import { EXPERIMENT_STATES } from './experiments.model.js';

const Revision = Int32({
  minimum: 1,
  description: 'Compare-and-swap: the current revision (409 version_conflict with metadata.currentRevision otherwise).',
});
const Allocation = Type.Number({
  minimum: 0,
  maximum: 100,
  description:
    "Percent of eligible traffic (two decimals). In a layer: the size of the experiment's bucket range (allocation × 100 buckets).",
});
const MetricRefSchema = Type.Object(
  {
    metricId: IdString('met_…'),
    revision: Int32({ minimum: 1, description: 'The pinned, immutable metric revision.' }),
  },
  { additionalProperties: false, title: 'MetricRef' },
);
const GuardrailSchema = Type.Object(
  {
    metricId: IdString('met_…'),
    revision: Int32({ minimum: 1 }),
    maxRelativeDegradation: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      description: 'Largest tolerated relative degradation, a fraction (0.05 = 5 %).',
    }),
  },
  { additionalProperties: false, title: 'GuardrailMetricRef' },
);
const AnalysisFields = {
  alpha: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'Significance level; default 0.05.' }),
  sequential: Type.Boolean({ description: 'Sequential testing; default false.' }),
  sequentialTuning: SafeInteger({
    minimum: 1,
    description: 'Tuning of the sequential boundary (expected units); default 5000.',
  }),
  cuped: Type.Boolean({ description: 'CUPED variance reduction; default false.' }),
  minimumUnitsPerVariant: SafeInteger({
    minimum: 1,
    description: 'Units each variant needs before results are read; default 100.',
  }),
};
const AnalysisInput = Type.Object(Type.Partial(Type.Object(AnalysisFields)).properties, {
  additionalProperties: false,
  description: 'Absent fields take their defaults.',
});
const Variants = Type.Array(VariantSchema, {
  minItems: 2,
  maxItems: 10,
  description: "2 to 10 variants of the flag's type, weights summing to 100; the first is the control.",
});
const Targeting = Type.Array(ConditionSchema, {
  maxItems: 50,
  description: 'Conditions as in flag rules; all must hold for a subject to be eligible. Empty: everyone.',
});
const Hypothesis = Type.String({ maxLength: 2000 });

export const CreateExperimentBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    key: DefinitionKey('Unique per environment.'),
    name: NameString,
    hypothesis: Type.Optional(Hypothesis),
    flagKey: Type.String({
      minLength: 1,
      maxLength: 128,
      description: `An existing flag of the environment. ${FLAG_KEY_DESCRIPTION}`,
    }),
    variants: Variants,
    allocation: Allocation,
    layerId: Type.Optional(
      IdString('lay_…: reserve allocation × 100 buckets of this layer (409 layer_full when they are not free).'),
    ),
    holdoutId: Type.Optional(IdString('hol_…: subjects in this holdout are never assigned.')),
    primaryMetric: MetricRefSchema,
    secondaryMetrics: Type.Optional(Type.Array(MetricRefSchema, { maxItems: 20 })),
    guardrailMetrics: Type.Optional(Type.Array(GuardrailSchema, { maxItems: 20 })),
    analysis: Type.Optional(AnalysisInput),
    targeting: Type.Optional(Targeting),
  },
  { additionalProperties: false, title: 'ExperimentCreate' },
);

export const PatchExperimentBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    revision: Revision,
    name: Type.Optional(NameString),
    hypothesis: Type.Optional(Hypothesis),
    analysis: Type.Optional(AnalysisInput),
    flagKey: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    variants: Type.Optional(Variants),
    allocation: Type.Optional(Allocation),
    layerId: Type.Optional(
      Type.Union([IdString(), Type.Null()], { description: 'null takes the experiment out of its layer.' }),
    ),
    holdoutId: Type.Optional(Type.Union([IdString(), Type.Null()])),
    primaryMetric: Type.Optional(MetricRefSchema),
    secondaryMetrics: Type.Optional(Type.Array(MetricRefSchema, { maxItems: 20 })),
    guardrailMetrics: Type.Optional(Type.Array(GuardrailSchema, { maxItems: 20 })),
    targeting: Type.Optional(Targeting),
  },
  {
    additionalProperties: false,
    title: 'ExperimentPatch',
    description:
      'name, hypothesis and analysis may change in any state; the other fields only while draft (409 experiment_not_draft). Use ramp to change the allocation of a started experiment.',
  },
);

export const TransitionBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    revision: Revision,
    to: Literals(EXPERIMENT_STATES, {
      description:
        'Any state: draft → running; running ⇄ paused; running|paused → completed; completed → archived. Every other move (back to draft, out of archived, to the state it is in) is 409 invalid_transition.',
    }),
    reason: Type.Optional(DescriptionString),
    winner: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'Only with to: completed: the winning variant key, recorded.',
      }),
    ),
  },
  { additionalProperties: false, title: 'ExperimentTransition' },
);

export const RampBody = Type.Object(
  { appId: IdString(), env: IdString(), revision: Revision, allocation: Allocation },
  { additionalProperties: false, title: 'ExperimentRamp' },
);

export const IterateBody = Type.Object(
  { appId: IdString(), env: IdString(), revision: Revision },
  { additionalProperties: false, title: 'ExperimentIterate' },
);

const IterationSchema = Type.Object(
  {
    id: Type.String({ description: 'itr_…' }),
    number: Type.Integer({ minimum: 1 }),
    revision: Type.Integer({ minimum: 1, description: 'Raised by each ramp.' }),
    salt: Type.String({
      description:
        'Allocation bucket of salt + "/" + targetingKey; variant bucket of salt + ":variant/" + targetingKey.',
    }),
    allocation: Type.Number(),
    startedAt: Timestamp(),
    state: Literals(['running', 'paused', 'completed'] as const),
  },
  { title: 'ExperimentIteration' },
);

export const ExperimentSchema = Type.Object(
  {
    id: Type.String({ description: 'exp_…' }),
    appId: Type.String(),
    env: Type.String(),
    key: Type.String(),
    revision: Int32({ minimum: 1 }),
    state: Literals(EXPERIMENT_STATES),
    name: Type.String(),
    hypothesis: Type.String(),
    flagKey: Type.String(),
    variants: Type.Array(VariantSchema),
    allocation: Type.Number(),
    layerId: Type.Union([Type.String(), Type.Null()]),
    layerRange: Type.Union(
      [Type.Object({ start: Type.Integer(), end: Type.Integer({ description: 'Exclusive.' }) }), Type.Null()],
      { description: "The experiment's buckets in its layer." },
    ),
    holdoutId: Type.Union([Type.String(), Type.Null()]),
    primaryMetric: MetricRefSchema,
    secondaryMetrics: Type.Array(MetricRefSchema),
    guardrailMetrics: Type.Array(GuardrailSchema),
    analysis: Type.Object(AnalysisFields),
    targeting: Type.Array(ConditionSchema),
    winner: Type.Union([Type.String(), Type.Null()]),
    lastTransition: Type.Union(
      [
        Type.Object({
          from: Literals(EXPERIMENT_STATES),
          to: Literals(EXPERIMENT_STATES),
          reason: Type.Union([Type.String(), Type.Null()]),
          at: Timestamp(),
        }),
        Type.Null(),
      ],
      { description: 'The latest lifecycle move and the reason given for it; null before the first.' },
    ),
    currentIteration: Type.Union([IterationSchema, Type.Null()], { description: 'null while draft.' }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    createdBy: AuthoritySchema,
  },
  { title: 'Experiment' },
);

export const ExperimentResponse = Type.Object({ experiment: ExperimentSchema });
export const ExperimentListResponse = Type.Object({
  experiments: Type.Array(ExperimentSchema, { description: 'Sorted by key.' }),
});
export const ServedChangeResponse = Type.Object({
  experiment: ExperimentSchema,
  version: Type.Integer({
    minimum: 0,
    description: 'The environment config version after the change (raised when what is served changed).',
  }),
  changeId: Type.Union([Type.String(), Type.Null()], {
    description: 'The journal entry of the config change; null when nothing served changed.',
  }),
});

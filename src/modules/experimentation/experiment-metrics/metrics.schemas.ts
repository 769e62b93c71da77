import { Type } from '@sinclair/typebox';
import { IdString, Timestamp, Int32 } from '../../../platform/common-schemas.js';
import {
  AuthoritySchema,
  DefinitionKey,
  DescriptionString,
  Literals,
  NameString,
} from '../../../platform/definition-schemas.js';
import { METRIC_DIRECTIONS, METRIC_KINDS } from './metrics.model.js';

const EventKey = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });

const fields = {
  name: NameString,
  kind: Literals(METRIC_KINDS),
  eventMetricKey: EventKey('The metricKey of the outcome events this metric reads.'),
  denominatorMetricKey: EventKey('Ratio metrics only (required there): the metricKey of the denominator events.'),
  direction: Literals(METRIC_DIRECTIONS),
  winsorizePercentile: Type.Number({
    minimum: 90,
    maximum: 100,
    description: 'Values above this percentile are capped at it (90 to 100).',
  }),
  description: DescriptionString,
};

export const CreateMetricBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    key: DefinitionKey('Unique per environment.'),
    name: fields.name,
    kind: fields.kind,
    eventMetricKey: fields.eventMetricKey,
    denominatorMetricKey: Type.Optional(fields.denominatorMetricKey),
    direction: fields.direction,
    winsorizePercentile: Type.Optional(fields.winsorizePercentile),
    description: Type.Optional(fields.description),
  },
  { additionalProperties: false, title: 'MetricCreate' },
);

export const ReviseMetricBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    revision: Int32({
      minimum: 1,
      description:
        'Compare-and-swap: the current head revision (409 version_conflict with metadata.currentRevision otherwise).',
    }),
    name: Type.Optional(fields.name),
    kind: Type.Optional(fields.kind),
    eventMetricKey: Type.Optional(fields.eventMetricKey),
    denominatorMetricKey: Type.Optional(
      Type.Union([fields.denominatorMetricKey, Type.Null()], {
        description: 'null removes it (when the kind stops being ratio).',
      }),
    ),
    direction: Type.Optional(fields.direction),
    winsorizePercentile: Type.Optional(
      Type.Union([fields.winsorizePercentile, Type.Null()], { description: 'null: no winsorizing.' }),
    ),
    description: Type.Optional(fields.description),
  },
  {
    additionalProperties: false,
    title: 'MetricRevise',
    description: 'Fields given replace those of the head; the others are kept.',
  },
);

export const MetricSchema = Type.Object(
  {
    id: Type.String({ description: 'met_…' }),
    appId: Type.String(),
    env: Type.String(),
    key: Type.String(),
    revision: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    kind: fields.kind,
    eventMetricKey: Type.String(),
    denominatorMetricKey: Type.Union([Type.String(), Type.Null()]),
    direction: fields.direction,
    winsorizePercentile: Type.Union([Type.Number(), Type.Null()]),
    description: Type.String(),
    createdAt: Timestamp('When this revision was appended.'),
    createdBy: AuthoritySchema,
  },
  { title: 'Metric', description: 'One immutable revision of a metric.' },
);

export const MetricQuery = Type.Object({
  appId: IdString(),
  env: IdString(),
  revision: Type.Optional(Int32({ minimum: 1, description: 'Read exactly this revision instead of the head.' })),
});

export const MetricResponse = Type.Object({ metric: MetricSchema });
export const MetricListResponse = Type.Object({
  metrics: Type.Array(MetricSchema, { description: 'Head revisions, sorted by key.' }),
});
export const MetricRevisionsResponse = Type.Object({
  revisions: Type.Array(MetricSchema, { description: 'Every revision, oldest first.' }),
});

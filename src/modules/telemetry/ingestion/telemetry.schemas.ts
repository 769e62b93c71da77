// Request and response schemas of telemetry ingestion. The envelope is validated by the route (a bad
// envelope is a 400); each item is validated on its own (event-validation.ts), so one bad event is
// a per-item error and the others are still stored.
import { Type, type Static } from '@sinclair/typebox';
import { Int32 } from '../../../platform/common-schemas.js';
import { MAX_METRIC_MAGNITUDE } from './telemetry.model.js';

const Label = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });

export const EventItem = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'Client-generated, unique per environment; retries reuse it.',
    }),
    kind: Type.Union([
      Type.Literal('decision'),
      Type.Literal('assignment'),
      Type.Literal('exposure'),
      Type.Literal('outcome'),
    ]),
    timestamp: Type.String({
      format: 'date-time',
      description: 'RFC 3339; at most 5 minutes ahead, at most 30 days old.',
    }),
    targetingKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'The subject; required except on decision events. Never returned by any query.',
      }),
    ),
    flagKey: Type.Optional(Label('Required on decision and exposure events.')),
    variant: Type.Optional(Label('Variant key or served value label.')),
    value: Type.Optional(Type.Unknown({ description: 'Any JSON value, at most 1 KiB serialised.' })),
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Z][A-Z0-9_]*$',
        description: 'OpenFeature reason (STATIC, TARGETING_MATCH, SPLIT, DEFAULT, DISABLED, ERROR, …).',
      }),
    ),
    experimentId: Type.Optional(Label('Experiment id.')),
    iterationId: Type.Optional(Label('Experiment iteration id.')),
    iterationRevision: Type.Optional(
      Int32({ minimum: 1, description: 'The iteration revision (a 32-bit integer, as stored).' }),
    ),
    metricKey: Type.Optional(Label('Required on outcome events.')),
    metricValue: Type.Optional(
      Type.Number({
        minimum: -MAX_METRIC_MAGNITUDE,
        maximum: MAX_METRIC_MAGNITUDE,
        description:
          'Finite, at most 10^15 in magnitude (so that no sum of values can overflow); 1 when an outcome event omits it.',
      }),
    ),
    attributes: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'At most 2 KiB serialised. Never returned by any query.',
      }),
    ),
  },
  {
    additionalProperties: false,
    $id: 'TelemetryEvent',
    title: 'TelemetryEvent',
    description: 'Canonical version-1 feature event.',
  },
);

export const BatchBody = Type.Object(
  {
    schemaVersion: Type.Literal(1),
    events: Type.Array(
      Type.Unknown({
        description: 'A canonical version-1 event (see TelemetryEvent); each item is validated on its own.',
      }),
      { minItems: 1, maxItems: 100 },
    ),
    sdk: Type.Optional(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 128 }), version: Type.String({ minLength: 1, maxLength: 64 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type BatchBody = Static<typeof BatchBody>;

const ItemResultSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0 }),
    id: Type.Union([Type.String(), Type.Null()], {
      description: 'The item id, or null when it has none that is valid.',
    }),
    status: Type.Union([
      Type.Literal('accepted'),
      Type.Literal('duplicate'),
      Type.Literal('permanent-error'),
      Type.Literal('retryable-error'),
    ]),
    code: Type.Optional(
      Type.String({
        description: 'validation_error, timestamp_out_of_range, event_id_conflict, flag_not_visible, rate_limited.',
      }),
    ),
    message: Type.Optional(Type.String()),
    retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const BatchResponse = Type.Object(
  {
    results: Type.Array(ItemResultSchema, { description: 'One result per item, in request order.' }),
    accepted: Type.Integer({ minimum: 0 }),
    duplicates: Type.Integer({ minimum: 0 }),
    rejected: Type.Integer({ minimum: 0, description: 'Items with a permanent or retryable error.' }),
  },
  { additionalProperties: false, title: 'EventBatchResult' },
);

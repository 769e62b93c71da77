// Request and response schemas of the insight queries: bodies exactly as the seed's tables.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { IdString, Timestamp, SafeInteger } from '../../../platform/common-schemas.js';

export const INSIGHT_DIMENSIONS = [
  'flagKey',
  'variant',
  'kind',
  'reason',
  'experimentId',
  'iterationId',
  'metricKey',
] as const;
export const INSIGHT_MEASURES = [
  'events',
  'subjects',
  'decisions',
  'assignments',
  'exposures',
  'outcomes',
  'metricSum',
  'metricMean',
] as const;
export type InsightMeasure = (typeof INSIGHT_MEASURES)[number];

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const FilterValue = Type.Union([
  Type.String({ minLength: 1, maxLength: 256 }),
  Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 100 }),
]);

export const Filters = Type.Object(
  {
    flagKey: Type.Optional(FilterValue),
    variant: Type.Optional(FilterValue),
    kind: Type.Optional(FilterValue),
    reason: Type.Optional(FilterValue),
    experimentId: Type.Optional(FilterValue),
    iterationId: Type.Optional(FilterValue),
    metricKey: Type.Optional(FilterValue),
  },
  { additionalProperties: false, description: 'Equality filters: each a string or an array of strings (any of them).' },
);
export type Filters = Static<typeof Filters>;

const Format = Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('ndjson')], {
  default: 'json',
  description:
    'json (default), csv (text/csv, a header row) or ndjson (application/x-ndjson, one row a line); csv and ndjson carry the metadata in X-Insights-* headers.',
});
const DeadlineAt = SafeInteger({
  minimum: 1,
  description:
    'Absolute Unix time in milliseconds; the earlier of this and X-Service-Deadline applies, within a 10-second budget.',
});

export const AggregateQueryBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    from: Timestamp(),
    to: Timestamp(),
    grain: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
    dimensions: Type.Optional(Type.Array(literals(INSIGHT_DIMENSIONS), { maxItems: 3, uniqueItems: true })),
    measures: Type.Array(literals(INSIGHT_MEASURES), { minItems: 1, maxItems: 10, uniqueItems: true }),
    filters: Type.Optional(Filters),
    format: Type.Optional(Format),
    deadlineAt: Type.Optional(DeadlineAt),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description:
          'Opaque, prefix ia1_, from nextCursor of the same query with the same credential; valid 15 minutes.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AggregateQueryBody = Static<typeof AggregateQueryBody>;

export const EventQueryBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    from: Timestamp(),
    to: Timestamp(),
    kinds: Type.Array(literals(['decision', 'assignment', 'exposure', 'outcome']), {
      minItems: 1,
      maxItems: 4,
      uniqueItems: true,
    }),
    filters: Type.Optional(Filters),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description: 'Opaque, prefix ie1_. An unprefixed legacy cursor is accepted once.',
      }),
    ),
    deadlineAt: Type.Optional(DeadlineAt),
    format: Type.Optional(Format),
  },
  { additionalProperties: false },
);
export type EventQueryBody = Static<typeof EventQueryBody>;

export const DeadlineHeaders = Type.Object({
  'x-service-deadline': Type.Optional(SafeInteger({ minimum: 1, description: 'Absolute Unix time in milliseconds.' })),
});

const Window = Type.Object({ from: Timestamp(), to: Timestamp() }, { additionalProperties: false });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const WatermarkSchema = Type.Union(
  [Type.Object({ receivedAt: Timestamp(), eventId: Type.String() }, { additionalProperties: false }), Type.Null()],
  { description: 'The newest event included, or null before the first.' },
);
const Freshness = Type.Object(
  { asOf: Timestamp(), lagSeconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]) },
  { additionalProperties: false },
);
export const RateLimitSchema = Type.Object(
  { limit: Type.Integer(), remaining: Type.Integer({ minimum: 0 }), resetAt: Timestamp() },
  { additionalProperties: false },
);

const AggregateRow = Type.Object(
  {
    bucketStart: Timestamp(),
    dimensions: Type.Record(Type.String(), NullableString),
    measures: Type.Record(Type.String(), Type.Union([Type.Number(), Type.Null()]), {
      description: 'null for every measure of a cell with fewer than 20 approximate subjects.',
    }),
  },
  { additionalProperties: false },
);

export const AggregateQueryResponse = Type.Object(
  {
    schemaVersion: Type.Literal('insights/v1'),
    engineVersion: Type.String(),
    rows: Type.Array(AggregateRow, { maxItems: 1000 }),
    requestedWindow: Window,
    effectiveWindow: Window,
    watermark: WatermarkSchema,
    freshness: Freshness,
    queryCost: Type.Object(
      { scannedBuckets: Type.Integer({ minimum: 0 }), units: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
    approximation: Type.Object(
      { subjects: Type.String(), relativeStandardError: Type.Number() },
      { additionalProperties: false },
    ),
    suppression: Type.Object(
      {
        minimumSubjects: Type.Literal(20),
        suppressedCells: Type.Integer({
          minimum: 0,
          description: 'Rows of this page whose measures are all null (fewer than 20 approximate subjects).',
        }),
        excludedParts: Type.Integer({
          minimum: 0,
          description:
            "Values of a dimension the query totals over (not grouped, or filtered to several values) left out of this page's rows because their own cell would be suppressed: one per row and value.",
        }),
      },
      { additionalProperties: false },
    ),
    rateLimit: RateLimitSchema,
    nextCursor: NullableString,
  },
  { additionalProperties: false },
);

const RedactedEventSchema = Type.Object(
  {
    id: Type.String(),
    kind: Type.String(),
    timestamp: Timestamp(),
    receivedAt: Timestamp(),
    flagKey: NullableString,
    variant: NullableString,
    reason: NullableString,
    experimentId: NullableString,
    iterationId: NullableString,
    iterationRevision: Type.Union([Type.Integer(), Type.Null()]),
    metricKey: NullableString,
    metricValue: Type.Union([Type.Number(), Type.Null()]),
    source: Type.Object(
      { appId: Type.String(), env: Type.String() },
      { additionalProperties: false, description: 'App and environment provenance.' },
    ),
  },
  { additionalProperties: false, description: 'A redacted event: never the targeting key, value or attributes.' },
);

export const EventQueryResponse = Type.Object(
  {
    events: Type.Array(RedactedEventSchema, { maxItems: 100 }),
    checkpoint: NullableString,
    freshness: Freshness,
    queryCost: Type.Object({ scannedEvents: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    execution: Type.Object(
      { deadline: Timestamp(), elapsed: Type.Integer({ minimum: 0, description: 'Milliseconds.' }) },
      { additionalProperties: false },
    ),
    nextCursor: NullableString,
  },
  { additionalProperties: false },
);

/** The 200 of both queries: the JSON body, or the same rows as csv or ndjson. */
export function formatResponses(json: TSchema) {
  return {
    description: 'The page; csv and ndjson carry the metadata in X-Insights-* headers.',
    content: {
      'application/json': { schema: json },
      'text/csv': { schema: Type.String({ description: 'A header row, then one row per result row.' }) },
      'application/x-ndjson': { schema: Type.String({ description: 'One JSON row per line.' }) },
    },
  };
}

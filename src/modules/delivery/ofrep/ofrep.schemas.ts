// Schemas of the OFREP routes, written after OFREP 0.3.0 (the OpenFeature Remote Evaluation
// Protocol): validation, types and the OpenAPI document. Answers are prebuilt JSON; these schemas
// document them and never serialise anything.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const OFREP_BODY_LIMIT = 64 * 1024;
export const INACTIVITY_DELAY_SEC = 120;

const Metadata = Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.String(), Type.Number()]), {
  description:
    "The flag's metadata: string, number and boolean entries only. sdk_ keys get all of them; pub_ keys only the keys listed in the environment's privacy.clientMetadataKeys.",
});

export const OfrepContext = Type.Object(
  {
    targetingKey: Type.Optional(
      Type.Unknown({
        description: 'The subject key, a string. Flags that split subjects need it (TARGETING_KEY_MISSING otherwise).',
      }),
    ),
  },
  {
    additionalProperties: true,
    title: 'OfrepContext',
    description: 'Evaluation context: targetingKey and any attributes. An empty object is accepted.',
  },
);

export const OfrepEvaluationRequest = Type.Object(
  { context: OfrepContext },
  // OFREP requests may grow fields in later protocol versions: unknown top-level fields are ignored.
  { additionalProperties: true, title: 'OfrepEvaluationRequest' },
);
export type OfrepEvaluationRequestType = Static<typeof OfrepEvaluationRequest>;

export const OfrepKeyParams = Type.Object({ key: Type.String({ minLength: 1, description: 'The flag key.' }) });

export const OfrepBulkQuery = Type.Object({
  flagConfigEtag: Type.Optional(
    Type.String({
      description:
        'The `etag` of the refetchEvaluation event that caused this request: answers are at least that recent.',
    }),
  ),
  flagConfigLastModified: Type.Optional(
    Type.String({ description: 'The `lastModified` of that event (accepted, not needed).' }),
  ),
});

export const OfrepBulkHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({
      description: 'The ETag of the bulk answer held: 304 when it is still the answer for this key and context.',
    }),
  ),
});

export const OfrepEventsQuery = Type.Object({
  token: Type.Optional(
    Type.String({
      description: 'The stream token from the eventStreams entry of a bulk answer (401 without a valid one).',
    }),
  ),
});

const OfrepSuccess = Type.Object(
  {
    key: Type.String(),
    value: Type.Unknown({
      description: "Of the flag's type: boolean, string, number, or (json flags) any JSON value.",
    }),
    reason: Type.Union(['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'UNKNOWN'].map((r) => Type.Literal(r))),
    variant: Type.Optional(Type.String()),
    metadata: Type.Optional(Metadata),
  },
  { title: 'OfrepEvaluationSuccess' },
);

const OfrepFailure = Type.Object(
  {
    key: Type.String(),
    errorCode: Type.Union(
      ['PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL'].map((c) => Type.Literal(c)),
    ),
    errorDetails: Type.Optional(Type.String()),
    metadata: Type.Optional(Metadata),
  },
  { title: 'OfrepEvaluationFailure' },
);

const OfrepFlagNotFound = Type.Object(
  { key: Type.String(), errorCode: Type.Literal('FLAG_NOT_FOUND'), errorDetails: Type.Optional(Type.String()) },
  { title: 'OfrepFlagNotFound' },
);

/** Every other error (401, 403, 413, 415, 429, 500, 503): a JSON body with a string errorCode. */
export const OfrepError = Type.Object(
  {
    key: Type.Optional(Type.String({ description: 'The flag key, on the single-flag route.' })),
    errorCode: Type.String({
      description:
        'UPPER_SNAKE: PARSE_ERROR, INVALID_CONTEXT, GENERAL, MISSING_CREDENTIAL, INVALID_CREDENTIAL, KEY_REVOKED, WRONG_KEY_TYPE, PAYLOAD_TOO_LARGE, MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED, …',
    }),
    errorDetails: Type.Optional(Type.String()),
  },
  { title: 'OfrepError' },
);

const EventStream = Type.Object(
  {
    type: Type.Literal('sse'),
    endpoint: Type.Object({
      requestUri: Type.String({
        pattern: '^/',
        description: 'Path and query of the stream, on the origin of the OFREP base URL.',
      }),
    }),
    inactivityDelaySec: Type.Integer({ minimum: 1 }),
  },
  {
    title: 'OfrepEventStream',
    description:
      "A server-sent event stream that sends `refetchEvaluation` when the environment's configuration changes.",
  },
);

const OfrepBulkSuccess = Type.Object(
  {
    flags: Type.Array(Type.Union([OfrepSuccess, OfrepFailure]), {
      description: 'Every flag this key may see, sorted by key; per-flag failures included.',
    }),
    eventStreams: Type.Array(EventStream),
  },
  { title: 'OfrepBulkEvaluationSuccess' },
);

const OfrepBulkFailure = Type.Object(
  { errorCode: Type.String(), errorDetails: Type.Optional(Type.String()) },
  { title: 'OfrepBulkEvaluationFailure' },
);

const retryAfter = {
  'retry-after': { type: 'integer', description: 'Seconds to wait (an integer: OFREP providers misread dates).' },
};
const withHeaders = (schema: TSchema, headers: Record<string, unknown>, description?: string) =>
  ({ ...schema, headers, ...(description ? { description } : {}) }) as TSchema;
const errorOf = (description: string) => ({ ...OfrepError, description }) as TSchema;

const commonErrors = {
  401: errorOf('Missing, invalid or revoked key'),
  403: errorOf('A management credential (cli_, admin_): OFREP takes sdk_ or pub_ keys'),
  413: errorOf('Body over 64 KiB'),
  500: errorOf('The stored configuration cannot be compiled (PARSE_ERROR), or an unexpected error (GENERAL)'),
};

export const singleResponses: Record<number, TSchema> = {
  200: { ...OfrepSuccess, description: 'The evaluated flag' } as TSchema,
  400: {
    ...OfrepFailure,
    description: 'The context cannot be used: INVALID_CONTEXT, TARGETING_KEY_MISSING, PARSE_ERROR (body is not JSON)',
  } as TSchema,
  404: { ...OfrepFlagNotFound, description: 'No such flag (or, for a pub_ key, not a client-visible one)' } as TSchema,
  ...commonErrors,
};

const quotaHeaders = {
  'x-sync-quota-limit': {
    type: 'integer',
    description: 'Configuration syncs this environment may make this month (UTC).',
  },
  'x-sync-quota-remaining': { type: 'integer', description: 'Syncs left this month.' },
};

export const bulkResponses: Record<number, TSchema> = {
  200: withHeaders(
    OfrepBulkSuccess,
    {
      etag: { type: 'string', description: 'Strong; a digest of this answer for this key and context.' },
      ...quotaHeaders,
    },
    'Every flag evaluated',
  ),
  304: {
    type: 'null',
    description: 'Not modified: If-None-Match holds the current ETag. No body.',
    headers: { etag: { type: 'string' }, ...quotaHeaders },
  } as unknown as TSchema,
  400: {
    ...OfrepBulkFailure,
    description: 'The context cannot be used (INVALID_CONTEXT) or the body is not JSON (PARSE_ERROR)',
  } as TSchema,
  ...commonErrors,
  429: withHeaders(errorOf('Monthly configuration sync quota used up (MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED)'), {
    ...retryAfter,
    ...quotaHeaders,
  }),
  503: withHeaders(errorOf('Syncs cannot be metered right now (CONFIG_SYNC_METERING_UNAVAILABLE)'), retryAfter),
};

export const eventResponses: Record<number, TSchema> = {
  200: {
    description:
      'A text/event-stream: `data: {"type":"refetchEvaluation","etag":"<version>","lastModified":<epoch seconds>}` per change, comments as heartbeats.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  } as unknown as TSchema,
  401: errorOf('The token is invalid or expired, or its key was revoked'),
};

// Schemas of the legacy delivery routes: they document the routes in the OpenAPI document. The 200
// body is sent as prebuilt bytes, so its schema never serialises anything.
import { Type, type TSchema } from '@sinclair/typebox';
import { FLAG_TYPES } from '@ensign/engine';
import { legacyErrorResponses } from '../../../platform/error-schemas.js';

const Rollout = Type.Object({
  percentage: Type.Number({ minimum: 0, maximum: 100 }),
  value: Type.Unknown(),
  salt: Type.Optional(Type.String()),
});
const Variant = Type.Object({
  key: Type.String(),
  value: Type.Unknown(),
  weight: Type.Number({ minimum: 0, maximum: 100 }),
});

const LegacyRule = Type.Object(
  {
    id: Type.String({ description: "The rule id; `$rollout` or `$variants` for the flag's trailing split." }),
    description: Type.Optional(Type.String()),
    conditions: Type.Array(
      Type.Object({ attribute: Type.String(), operator: Type.String(), values: Type.Array(Type.Unknown()) }),
    ),
    serve: Type.Union([
      Type.Object({ value: Type.Unknown() }),
      Type.Object({ variant: Type.String() }),
      Type.Object({ rollout: Rollout }),
      Type.Object({ variants: Type.Array(Variant) }),
    ]),
  },
  { title: 'LegacyRule' },
);

export const LegacyEnvelopeSchema = Type.Object(
  {
    appId: Type.String(),
    env: Type.String({ description: 'Canonical environment slug.' }),
    version: Type.Integer({ minimum: 0, description: 'Config version of the environment.' }),
    doc: Type.Object({
      flags: Type.Record(
        Type.String(),
        Type.Object({ type: Type.Union(FLAG_TYPES.map((t) => Type.Literal(t))), value: Type.Unknown() }),
        {
          description: 'Every flag (client route: only clientEnabled flags) with its type and default value.',
        },
      ),
      overrides: Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
        description:
          'Per-subject values by flag key and targetingKey; only flags that have some. Empty on the client route.',
      }),
      rules: Type.Record(Type.String(), Type.Array(LegacyRule), {
        description:
          'Ordered rules by flag key, ending with the rollout or variants as a rule without conditions; only flags that have some. Empty on the client route.',
      }),
    }),
    ttlSeconds: Type.Integer({
      minimum: 0,
      description: 'How long the caller may use the document before asking again.',
    }),
  },
  { title: 'LegacyConfigEnvelope', description: 'The configuration document' },
);

const quotaHeaders = {
  'x-sync-quota-limit': {
    type: 'integer',
    description: 'Configuration syncs this environment may make this month (UTC).',
  },
  'x-sync-quota-remaining': { type: 'integer', description: 'Syncs left this month, after this one.' },
};

const retryAfter = (description: string) => ({ 'retry-after': { type: 'integer', description } });

function withHeaders(schema: TSchema, headers: Record<string, unknown>): TSchema {
  return { ...schema, headers } as TSchema;
}

const legacy = legacyErrorResponses(401, 'monthly_config_sync_quota_exceeded', 'config_sync_metering_unavailable');

/** 200 envelope, 304, and the legacy errors, each with the headers it carries. */
export const deliveryResponses = {
  200: withHeaders(LegacyEnvelopeSchema, {
    etag: {
      type: 'string',
      description: 'Strong, opaque; bound to the credential, the route and the version. Send it back in If-None-Match.',
    },
    'cache-control': { type: 'string', description: '`private, no-cache`: caches must revalidate with If-None-Match.' },
    ...quotaHeaders,
  }),
  304: {
    type: 'null',
    description: 'Not modified: the If-None-Match tag is current. No body; counts as a sync.',
    headers: { etag: { type: 'string' }, ...quotaHeaders },
  },
  401: legacy[401]!,
  429: withHeaders(legacy[429]!, { ...retryAfter('Seconds until the next calendar month (UTC).'), ...quotaHeaders }),
  503: withHeaders(legacy[503]!, retryAfter('Always 1: metering is retried every second.')),
};

/** Headers a delivery request may carry (documented; read from the raw request). */
export const DeliveryRequestHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'The ETag of the document you hold; answered with 304 if it is current.' }),
  ),
});

import { Type } from '@sinclair/typebox';
import { IdString, Nullable, Timestamp, Int32 } from '../../../platform/common-schemas.js';
import { Literals } from '../../../platform/definition-schemas.js';
import { EVENT_KINDS } from '../ingestion/index.js';
import { DESTINATION_STATUSES } from './exports.model.js';
import { DELIVERY_STATUSES } from './webhook-deliveries.repository.js';

const Name = Type.String({ minLength: 1, maxLength: 200, description: 'Unique per environment.' });
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https://<host allowed by ENSIGN_EXPORT_ALLOWED_HOSTS>/…, port 443, no IP literal, no credentials.',
});
const Kinds = Type.Array(Literals(EVENT_KINDS), {
  maxItems: EVENT_KINDS.length,
  uniqueItems: true,
  description: 'Event kinds exported; absent or empty: every kind.',
});
const Filters = Type.Object(
  {
    flagKeys: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 100,
        description: 'Only events of these flags (outcome events carry no flag and are kept only without this filter).',
      }),
    ),
    experimentIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: 100,
        description: 'Only events of these experiments.',
      }),
    ),
  },
  { additionalProperties: false, title: 'ExportFilters' },
);
const BatchSize = Type.Integer({ minimum: 1, maximum: 1000, description: 'Events per delivery (default 500).' });
const SettableStatus = Literals(['active', 'paused'] as const, {
  description: 'disabled is set by the service after 24 hours of failures; set active to resume.',
});

export const CreateDestinationBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    name: Name,
    url: Url,
    kinds: Type.Optional(Kinds),
    filters: Type.Optional(Filters),
    batchSize: Type.Optional(BatchSize),
    status: Type.Optional(SettableStatus),
  },
  { additionalProperties: false, title: 'ExportDestinationCreate' },
);

export const UpdateDestinationBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    version: Int32({
      minimum: 1,
      description: 'Compare-and-swap: the current version (409 version_conflict otherwise).',
    }),
    name: Type.Optional(Name),
    url: Type.Optional(Url),
    kinds: Type.Optional(Kinds),
    filters: Type.Optional(Filters),
    batchSize: Type.Optional(BatchSize),
    status: Type.Optional(SettableStatus),
  },
  {
    additionalProperties: false,
    title: 'ExportDestinationUpdate',
    description: 'Fields given replace the current ones; the others are kept.',
  },
);

export const RotateSecretBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    version: Type.Optional(
      Int32({
        minimum: 1,
        description:
          'Compare-and-swap when given: the current version (409 version_conflict otherwise). Without it the current secret is rotated whatever the version.',
      }),
    ),
  },
  { additionalProperties: false, title: 'ExportSecretRotate' },
);

export const DestinationSchema = Type.Object(
  {
    id: Type.String({ description: 'dst_…' }),
    appId: Type.String(),
    env: Type.String(),
    name: Type.String(),
    url: Type.String(),
    kinds: Type.Array(Literals(EVENT_KINDS)),
    filters: Filters,
    batchSize: Type.Integer(),
    status: Literals(DESTINATION_STATUSES),
    version: Type.Integer({ minimum: 1 }),
    secretVersion: Type.Integer({ minimum: 1, description: 'Raised by each rotation.' }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { title: 'ExportDestination', description: 'A raw telemetry export destination; never carries the signing secret.' },
);

export const HealthSchema = Type.Object(
  {
    lastAttemptAt: Nullable(Timestamp()),
    lastSuccessAt: Nullable(Timestamp()),
    consecutiveFailures: Type.Integer({ minimum: 0 }),
    lastError: Type.Union([
      Type.Object({
        status: Type.Union([Type.Integer(), Type.Null()], {
          description: 'HTTP status of the receiver, null when none answered.',
        }),
        code: Type.String(),
        message: Type.String(),
      }),
      Type.Null(),
    ]),
    backlog: Type.Integer({ minimum: 0, description: 'Deliveries pending or being delivered.' }),
    oldestPendingAt: Nullable(Timestamp()),
  },
  { title: 'ExportDestinationHealth' },
);

const SigningSecret = Type.String({
  pattern: '^whsec_',
  description: 'The Standard Webhooks signing secret, shown only in this response.',
});

export const DestinationWithSecretResponse = Type.Object({
  destination: DestinationSchema,
  signingSecret: SigningSecret,
});
export const DestinationResponse = Type.Object({ destination: DestinationSchema });
export const DestinationHealthResponse = Type.Object({ destination: DestinationSchema, health: HealthSchema });
export const DestinationListResponse = Type.Object({
  destinations: Type.Array(DestinationSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const DestinationListQuery = Type.Object({
  appId: IdString(),
  env: IdString(),
  status: Type.Optional(Literals(DESTINATION_STATUSES)),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
});

const DeliveryErrorSchema = Type.Object({
  status: Type.Union([Type.Integer(), Type.Null()]),
  code: Type.String({
    description: 'http_error, connection_failed, address_not_allowed, redirect_not_followed, dns_failed.',
  }),
  message: Type.String(),
});

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'dlv_…; also the webhook-id header of every attempt.' }),
    status: Literals(DELIVERY_STATUSES),
    attempts: Type.Integer({ minimum: 0 }),
    eventCount: Type.Integer({ minimum: 1 }),
    firstEventAt: Timestamp(),
    lastEventAt: Timestamp(),
    lastAttemptAt: Nullable(Timestamp()),
    nextAttemptAt: Nullable(Timestamp()),
    lastError: Type.Union([DeliveryErrorSchema, Type.Null()]),
  },
  { title: 'ExportDelivery' },
);

export const DeliveryListQuery = Type.Object({
  appId: IdString(),
  env: IdString(),
  status: Type.Optional(Literals(DELIVERY_STATUSES)),
  from: Type.Optional(Timestamp('Deliveries with events at or after this instant.')),
  to: Type.Optional(Timestamp('Deliveries with events before this instant.')),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
});
export const DeliveryListResponse = Type.Object({
  deliveries: Type.Array(DeliverySchema, { description: 'Newest first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const DeliveryParams = Type.Object({ id: IdString(), deliveryId: IdString() });
export const RetryBody = Type.Object(
  { appId: IdString(), env: IdString() },
  { additionalProperties: false, title: 'ExportDeliveryRetry' },
);
export const RetryResponse = Type.Object({ delivery: DeliverySchema });
export const BackfillBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    from: Timestamp('Start of the window (events by their timestamp), within the last 30 days.'),
    to: Type.Optional(Timestamp('End of the window (exclusive); default now.')),
    idempotencyKey: Type.String({
      minLength: 16,
      maxLength: 128,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'Caller-stable: a retry replays the first answer.',
    }),
  },
  { additionalProperties: false, title: 'ExportBackfill' },
);
const BackfillSchema = Type.Object(
  {
    id: Type.String({ description: 'bkf_…' }),
    destinationId: Type.String(),
    from: Timestamp(),
    to: Timestamp(),
    status: Type.Union(
      [Type.Literal('queued'), Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')],
      { description: 'queued → running → completed (or failed after its retries)' },
    ),
    deliveries: Type.Integer({ minimum: 0, description: 'Deliveries cut for the window so far.' }),
    events: Type.Integer({ minimum: 0, description: 'Events of the window put into deliveries so far.' }),
    createdAt: Timestamp(),
    completedAt: Type.Union([Timestamp(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'ExportBackfillReceipt' },
);
export const BackfillResponse = Type.Object({ backfill: BackfillSchema });
export const BackfillListResponse = Type.Object({
  backfills: Type.Array(BackfillSchema, { description: 'Newest first, at most 50.' }),
});
export const BackfillParams = Type.Object({ id: IdString(), backfillId: IdString() });

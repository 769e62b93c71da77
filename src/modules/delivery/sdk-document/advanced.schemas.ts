// Request and response schemas of the advanced configuration routes. The document's 200 body is sent
// as prebuilt bytes, so its schema documents it and never serialises anything.
import { Type, type TSchema } from '@sinclair/typebox';
import { FLAG_TYPES } from '@ensign/engine';
import { ConfigVersionNumber, IdString } from '../../../platform/common-schemas.js';
import { errorResponses } from '../../../platform/error-schemas.js';
import { BulkApplyBody } from '../../core/flags/index.js';
import { DiffEntrySchema } from '../../core/journal/index.js';
import {
  ConditionSchema,
  DependencySchema,
  FLAG_KEY_DESCRIPTION,
  PrivacySchema,
  RolloutSchema,
  RuleSchema,
  VariantSchema,
} from '../../core/config/index.js';
import { CORE_SCHEMA_VERSION } from './advanced.model.js';

const ConfigVersion = ConfigVersionNumber;
const FlagKeys = (description: string) =>
  Type.Array(Type.String({ description: FLAG_KEY_DESCRIPTION }), { description });

const coreFlagFields = {
  type: Type.Union(FLAG_TYPES.map((t) => Type.Literal(t))),
  value: Type.Unknown({ description: 'Served when no override, rule, rollout or variant applies.' }),
  enabled: Type.Boolean({
    description:
      'The off switch: when false an evaluator serves offValue with reason DISABLED and skips everything else of the flag.',
  }),
  offValue: Type.Unknown({ description: 'Served while enabled is false; of the flag type.' }),
  clientVisible: Type.Boolean({
    description:
      "The flag's own client visibility (clientEnabled). In a client projection a flag present only as a prerequisite of a visible flag says false.",
  }),
  rollout: Type.Union([RolloutSchema, Type.Null()]),
  variants: Type.Union([Type.Array(VariantSchema), Type.Null()]),
  rules: Type.Array(RuleSchema, {
    description: 'Ordered. Client projection: rules reading a private attribute are left out.',
  }),
  overrides: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Targeting key → value. Always empty in the client projection.',
  }),
  dependencies: Type.Array(DependencySchema, {
    description: 'Prerequisites; every flag named is in the same document.',
  }),
  metadata: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Client projection: only the keys listed in privacy.clientMetadataKeys.',
  }),
};
const CoreFlagSchema = Type.Object(coreFlagFields, { title: 'CoreFlag' });

const ServedExperimentSchema = Type.Object(
  {
    id: Type.String(),
    key: Type.String(),
    flagKey: Type.String(),
    state: Type.Literal('running'),
    iterationId: Type.String(),
    iterationNumber: Type.Integer({ minimum: 1 }),
    iterationRevision: Type.Integer({ minimum: 1 }),
    salt: Type.String({
      description:
        'Allocation: murmur3(salt + "/" + targetingKey) mod 10000 < allocation × 100. Variant: buckets of salt + ":variant".',
    }),
    allocation: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'Unused in a layer: the layer range is the allocation.',
    }),
    variants: Type.Array(VariantSchema, { description: 'The first is the control.' }),
    targeting: Type.Array(ConditionSchema),
    layer: Type.Union([
      Type.Object({
        id: Type.String(),
        salt: Type.String(),
        start: Type.Integer(),
        end: Type.Integer({ description: 'Exclusive.' }),
      }),
      Type.Null(),
    ]),
    holdout: Type.Union([
      Type.Object({ id: Type.String(), salt: Type.String(), percentage: Type.Number() }),
      Type.Null(),
    ]),
  },
  { title: 'CoreExperiment' },
);

export const CoreDocumentSchema = Type.Object(
  {
    schemaVersion: Type.Literal(CORE_SCHEMA_VERSION),
    appId: Type.String(),
    env: Type.String({ description: 'Canonical environment slug.' }),
    version: ConfigVersion('Config version of the environment.'),
    audience: Type.Union([Type.Literal('server'), Type.Literal('client')], {
      description: 'client for pub_ keys (the client projection); server otherwise.',
    }),
    delivery: Type.Object({
      ttlSeconds: Type.Integer({ minimum: 1, description: 'How long the document may be used before asking again.' }),
      etag: Type.String({ description: 'The ETag header of this response: send it back in If-None-Match.' }),
      generatedAt: Type.String({
        format: 'date-time',
        description: 'When this process built the document of this version.',
      }),
      pollIntervalSeconds: Type.Integer({
        minimum: 1,
        description: 'Recommended interval between conditional requests (equals ttlSeconds).',
      }),
    }),
    privacy: PrivacySchema,
    flags: Type.Record(Type.String(), CoreFlagSchema, {
      description:
        'By flag key, sorted. Client projection: client-visible flags and, transitively, the flags they depend on.',
    }),
    experiments: Type.Optional(
      Type.Array(ServedExperimentSchema, {
        description:
          'Server audience only (absent for pub_ keys): running experiments sorted by id. For a flag with one, after overrides: targeting → holdout → layer range or allocation → variant by weight; see docs/experiments.md.',
      }),
    ),
  },
  { title: 'CoreConfigDocument', description: 'Core schema v1' },
);

export const AdvancedConfigQuery = Type.Object({
  appId: Type.Optional(
    IdString('Required with cli_ and admin_ credentials; inferred from sdk_ and pub_ keys (must be theirs if given).'),
  ),
  env: Type.Optional(
    IdString('Required with cli_ and admin_ credentials; inferred from sdk_ and pub_ keys (must be theirs if given).'),
  ),
});

export const AdvancedConfigHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'The ETag of the document you hold; answered with 304 if it is current.' }),
  ),
});

const quotaHeaders = {
  'x-sync-quota-limit': {
    type: 'integer',
    description: 'sdk_ and pub_ keys only: syncs this environment may make this month (UTC).',
  },
  'x-sync-quota-remaining': {
    type: 'integer',
    description: 'sdk_ and pub_ keys only: syncs left this month, after this one.',
  },
};
const streamHeader = {
  'x-ensign-event-stream': {
    type: 'string',
    description:
      "sdk_ and pub_ keys only: the path (with a stream token) of the environment's change stream, GET /api/ofrep/v1/events. The Ensign SDK opens it and fetches the document again (If-None-Match) on each refetchEvaluation. The token is issued per UTC day and expires at the end of the next.",
  },
};
const withHeaders = (schema: TSchema, headers: Record<string, unknown>) => ({ ...schema, headers }) as TSchema;
const errors = errorResponses(
  400,
  401,
  403,
  404,
  'monthly_config_sync_quota_exceeded',
  500,
  'config_invalid',
  'config_sync_metering_unavailable',
);

export const advancedConfigResponses = {
  200: withHeaders(CoreDocumentSchema, {
    etag: {
      type: 'string',
      description: 'Strong, opaque; bound to the credential, the representation, the route and the version.',
    },
    'cache-control': { type: 'string', description: '`private, no-cache`.' },
    ...quotaHeaders,
    ...streamHeader,
  }),
  304: {
    type: 'null',
    description: 'Not modified: the If-None-Match tag is current. No body; counts as a sync for sdk_ and pub_ keys.',
    headers: { etag: { type: 'string' }, ...quotaHeaders, ...streamHeader },
  },
  ...errors,
  429: withHeaders(errors[429]!, {
    'retry-after': { type: 'integer', description: 'Seconds until the next calendar month (UTC).' },
    ...quotaHeaders,
  }),
  503: withHeaders(errors[503]!, {
    'retry-after': { type: 'integer', description: 'Always 1: metering is retried every second.' },
  }),
};

// The changes an impact request proposes are exactly what bulk apply takes, so they are read and
// validated by the same schema and code.
const bulk = BulkApplyBody.properties;
export const ImpactBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    changes: Type.Object(
      { flags: bulk.flags, advanced: bulk.advanced, privacy: bulk.privacy },
      {
        additionalProperties: false,
        description: 'The flags, advanced and privacy fields of PATCH /api/v1/flags/bulk.',
      },
    ),
  },
  { additionalProperties: false, title: 'AdvancedImpactRequest' },
);

const VisibilityEntry = Type.Object({
  key: Type.String(),
  via: Type.Union([Type.Literal('clientVisible'), Type.Literal('dependency')], {
    description: 'clientVisible: the flag is client-visible itself; dependency: a client-visible flag depends on it.',
  }),
});

export const ImpactResponse = Type.Object(
  {
    baseVersion: ConfigVersion('The current version the changes were compared with.'),
    affectedFlags: Type.Array(
      Type.Object({
        key: Type.String(),
        reasons: Type.Array(
          Type.Union([Type.Literal('changed'), Type.Literal('dependent'), Type.Literal('client_projection')]),
          {
            description:
              'changed: its definition changes; dependent: it depends (transitively) on a changed flag; client_projection: what pub_ keys receive of it changes.',
          },
        ),
      }),
      { description: 'Sorted by key.' },
    ),
    changes: Type.Array(DiffEntrySchema, {
      description: 'The structured diff the changes would record, as in GET /api/v1/config-versions/diff.',
    }),
    dependencyChanges: Type.Array(
      Type.Object({ key: Type.String(), before: Type.Array(DependencySchema), after: Type.Array(DependencySchema) }),
      { description: 'Flags whose prerequisites change, sorted by key.' },
    ),
    visibility: Type.Object({
      becomeVisible: Type.Array(VisibilityEntry, { description: 'Flags entering the client projection.' }),
      becomeHidden: Type.Array(VisibilityEntry, {
        description: 'Flags leaving the client projection (via: why they were in it).',
      }),
      projectionChanged: FlagKeys('Flags that stay in the client projection but whose projected definition changes.'),
    }),
  },
  { title: 'AdvancedImpact' },
);

export const INSPECT_BODY_LIMIT = 64 * 1024;

export const InspectBody = Type.Object(
  {
    appId: IdString(),
    env: IdString(),
    baseVersion: ConfigVersion(
      'The current config version the document was written against (409 version_conflict otherwise).',
    ),
    document: Type.Object(
      {
        schemaVersion: Type.Optional(Type.Literal(CORE_SCHEMA_VERSION)),
        flags: Type.Record(
          Type.String(),
          Type.Unknown({
            description:
              'A core/v1 flag: type, value, enabled, offValue, clientVisible, description, rollout, variants, rules, overrides, dependencies, metadata. Checked by the inspection, reported in errors.',
          }),
          {
            description: 'Every flag of the proposed environment, by key.',
          },
        ),
        privacy: bulk.privacy,
        settings: Type.Optional(
          Type.Object({ ttlSeconds: bulk.advanced.properties.ttlSeconds }, { additionalProperties: false }),
        ),
      },
      {
        additionalProperties: false,
        description: "A proposed core/v1 configuration. Sections left out keep the base version's settings.",
      },
    ),
  },
  { additionalProperties: false, title: 'AdvancedInspectRequest' },
);

const Issue = Type.Object({
  path: Type.String({ description: 'JSON pointer into the request.' }),
  message: Type.String(),
  code: Type.Optional(Type.String()),
});

export const InspectResponse = Type.Object(
  {
    baseVersion: ConfigVersion('The version inspected against (the current one).'),
    valid: Type.Boolean(),
    errors: Type.Array(Issue, { description: 'Problems that make the document invalid; empty when valid.' }),
    warnings: Type.Array(Issue, {
      description:
        'Valid but noteworthy: dependency_exposed, rule_dropped_for_clients, overrides_not_sent_to_clients, metadata_filtered, flag_removed. Sorted by path.',
    }),
    normalized: Type.Union(
      [
        Type.Object({
          schemaVersion: Type.Literal(CORE_SCHEMA_VERSION),
          settings: Type.Object({ ttlSeconds: Type.Integer() }),
          privacy: PrivacySchema,
          flags: Type.Record(Type.String(), Type.Object({ ...coreFlagFields, description: Type.String() })),
        }),
        Type.Null(),
      ],
      { description: 'Every default filled in, keys and lists sorted; null when invalid.' },
    ),
    digest: Type.Union([Type.String(), Type.Null()], {
      description: 'SHA-256 (hex) of the canonical JSON of normalized; null when invalid.',
    }),
  },
  { title: 'AdvancedInspection' },
);

// Schemas of the composite state and of the flag record inside it (CONTRACT section 4). They live
// beside the state they describe, so the flags module (which depends on versions) and the versions
// routes share them. Shapes only: the rules that need the flag's type or the rest of the
// environment (value types, weights summing to 100, regular expressions, sizes, key syntax) are the
// engine's validateFlagDefinition, so they are written once and answer with precise paths.
import { Type } from '@sinclair/typebox';
import { FLAG_TYPES, OPERATORS } from '@ensign/engine';

const TypedValue = (description: string) => Type.Unknown({ description });
const Percentage = Type.Number({ minimum: 0, maximum: 100, description: '0 to 100, at most two decimals.' });

export const FlagTypeSchema = Type.Union(
  FLAG_TYPES.map((t) => Type.Literal(t)),
  { description: 'bool, string, number or json' },
);

export const RolloutSchema = Type.Object(
  {
    percentage: Percentage,
    value: TypedValue('Served to subjects whose bucket falls below the percentage; of the flag type.'),
    salt: Type.Optional(Type.String({ description: 'Bucketing salt; defaults to the flag key.' })),
  },
  { additionalProperties: false, title: 'Rollout' },
);

export const VariantSchema = Type.Object(
  {
    key: Type.String({ description: 'Unique within the flag; same characters as flag keys.' }),
    value: TypedValue('Of the flag type.'),
    weight: Type.Number({ minimum: 0, maximum: 100, description: 'Weights of a flag sum to 100.' }),
  },
  { additionalProperties: false, title: 'Variant' },
);

export const ConditionSchema = Type.Object(
  {
    attribute: Type.String({ description: 'Dotted path into the evaluation context; targetingKey names the subject.' }),
    operator: Type.Union(OPERATORS.map((o) => Type.Literal(o))),
    values: Type.Array(Type.Unknown(), {
      description:
        'Typed by the operator: strings for contains/startsWith/endsWith, one regular expression (≤ 256 characters) for matches, numbers for lt/lte/gt/gte, semantic versions for semver*, RFC 3339 timestamps for before/after, none for exists/notExists.',
    }),
  },
  { additionalProperties: false, title: 'Condition' },
);

export const RuleSchema = Type.Object(
  {
    id: Type.String({ description: 'Unique within the flag.' }),
    description: Type.Optional(Type.String()),
    conditions: Type.Array(ConditionSchema, { description: 'All must hold; empty matches every subject.' }),
    serve: Type.Object(
      {
        value: Type.Optional(TypedValue('A value of the flag type.')),
        variant: Type.Optional(Type.String({ description: 'Key of one of the flag variants.' })),
        rollout: Type.Optional(RolloutSchema),
      },
      { additionalProperties: false, description: 'Exactly one of value, variant or rollout.' },
    ),
  },
  { additionalProperties: false, title: 'Rule' },
);

export const DependencySchema = Type.Object(
  {
    flag: Type.String({ description: 'Key of another flag of the environment.' }),
    value: Type.Unknown({ description: 'The value that flag must evaluate to for this one to be targeted.' }),
  },
  { additionalProperties: false, title: 'Dependency' },
);

/** Every field of a flag except its key, as a request may give them. */
export const flagFieldSchemas = {
  type: FlagTypeSchema,
  value: TypedValue(
    'The value served when no override, rule, rollout or variant applies; of the flag type (≤ 32 KiB).',
  ),
  enabled: Type.Boolean({
    description:
      'The off switch (default true). When false, overrides, rules, rollouts and variants are skipped and offValue is served with reason DISABLED on every route.',
  }),
  offValue: TypedValue(
    'Served while enabled is false; of the flag type. Defaults to value when the flag is created (and when a type change gives no offValue of the new type).',
  ),
  clientEnabled: Type.Boolean({ description: 'Visible to pub_ keys when true.' }),
  description: Type.String({ description: 'At most 1024 characters.' }),
  rollout: Type.Union([RolloutSchema, Type.Null()], { description: 'Exclusive with variants.' }),
  variants: Type.Union([Type.Array(VariantSchema), Type.Null()], { description: 'Exclusive with rollout.' }),
  rules: Type.Array(RuleSchema, { description: 'Ordered; the first matching rule serves.' }),
  overrides: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Targeting key → value of the flag type; checked before rules.',
  }),
  dependencies: Type.Array(DependencySchema, { description: 'Prerequisite flags; no cycles.' }),
  metadata: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Free JSON object, at most 4 KiB; never sent to pub_ keys.',
  }),
};

export const FLAG_KEY_DESCRIPTION = '1 to 128 characters of A-Z a-z 0-9 . _ - :, starting with a letter or digit.';

export const FlagRecordSchema = Type.Object(
  {
    key: Type.String({ description: FLAG_KEY_DESCRIPTION }),
    ...flagFieldSchemas,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  // Open like the state around it: a record is answered exactly as stored.
  { title: 'Flag', additionalProperties: true },
);

export const PrivacySchema = Type.Object(
  {
    privateAttributes: Type.Array(Type.String(), { description: 'Context attributes never sent to clients.' }),
    clientMetadataKeys: Type.Array(Type.String(), { description: 'Flag metadata keys client projections keep.' }),
  },
  { title: 'Privacy', additionalProperties: true },
);

// additionalProperties: the response serializer drops undeclared fields, and a retained snapshot must
// come back exactly as stored even once later modules add sections to the state.
export const ConfigStateSchema = Type.Object(
  {
    flags: Type.Record(Type.String(), FlagRecordSchema),
    privacy: PrivacySchema,
    settings: Type.Object({ ttlSeconds: Type.Integer({ minimum: 1 }) }, { additionalProperties: true }),
  },
  { additionalProperties: true, title: 'ConfigState' },
);

// Request and response schemas of POST /api/v1/evaluate: validation, types and the OpenAPI document
// from one source. Responses are sent as prebuilt JSON, so these schemas never serialise anything.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EXPERIMENT_REASONS, FALLBACK_CLASSES, ERROR_CODES, REASONS } from '@ensign/engine';
import { legacyErrorResponses } from '../../../platform/error-schemas.js';

export const EVALUATE_BODY_LIMIT = 64 * 1024;
export const MAX_FLAG_KEYS = 100;

const FlagKey = Type.String({ minLength: 1, maxLength: 128, description: 'A flag key of the environment.' });

export const EvaluationContextSchema = Type.Object(
  {
    targetingKey: Type.Optional(
      Type.Unknown({
        description:
          'The subject key (a string): overrides, rollouts and variant splits bucket on it. ' +
          'Any other type makes each result an INVALID_CONTEXT error (fallbackClass invalid_context).',
      }),
    ),
  },
  {
    additionalProperties: true,
    title: 'EvaluationContext',
    description: 'Attributes of the subject; rule conditions read them by dotted path. Any JSON object.',
  },
);

export const EvaluateBody = Type.Object(
  {
    flagKey: Type.Optional(FlagKey),
    flagKeys: Type.Optional(
      Type.Array(FlagKey, {
        minItems: 1,
        maxItems: MAX_FLAG_KEYS,
        uniqueItems: true,
        description:
          'Evaluate these flags (1 to 100). Without flagKey and flagKeys, every flag of the environment is evaluated.',
      }),
    ),
    context: EvaluationContextSchema,
    defaultValue: Type.Optional(
      Type.Unknown({
        description:
          'Served instead of nothing when an evaluation fails (reason ERROR). Its JSON type also states the type ' +
          'the caller expects (boolean → bool, string → string, number → number, anything else → json): a flag of ' +
          'another type answers TYPE_MISMATCH.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'EvaluateRequest',
    description: 'flagKey and flagKeys are mutually exclusive.',
  },
);
export type EvaluateBodyType = Static<typeof EvaluateBody>;

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const EvaluationDetailSchema = Type.Object(
  {
    key: Type.String(),
    value: Type.Unknown({
      description: 'The value to use. On an error: defaultValue when one was sent, otherwise null.',
    }),
    variant: Type.Optional(Type.String({ description: 'The variant served, when the value came from a variant.' })),
    reason: literals(REASONS),
    ruleId: Type.Optional(Type.String({ description: 'The rule that decided, when one did.' })),
    errorCode: Type.Optional(literals(ERROR_CODES)),
    errorMessage: Type.Optional(Type.String()),
    origin: Type.Literal('remote', { description: 'Evaluated by the service (remote evaluation).' }),
    fallbackClass: literals(FALLBACK_CLASSES),
    version: Type.Integer({ minimum: 0, description: 'The config version the flag was evaluated at.' }),
    flagMetadata: Type.Record(Type.String(), Type.Unknown(), {
      description: "The flag's metadata ({} for a missing flag).",
    }),
    experiment: Type.Optional(
      Type.Object(
        {
          id: Type.String({ description: 'exp_…' }),
          iterationId: Type.String({ description: 'itr_…' }),
          iterationRevision: Type.Integer({ minimum: 1 }),
          variant: Type.Union([Type.String(), Type.Null()], {
            description: 'The variant assigned; null when not in the experiment.',
          }),
          inExperiment: Type.Boolean(),
          reason: literals(EXPERIMENT_REASONS),
        },
        {
          title: 'ExperimentAssignment',
          description:
            'Present when the flag runs an experiment: whether and why the subject is in it. Assigned subjects get reason SPLIT.',
        },
      ),
    ),
  },
  { title: 'EvaluationDetail' },
);

export const EvaluationBatchSchema = Type.Object(
  {
    version: Type.Integer({ minimum: 0, description: 'The config version every result was evaluated at.' }),
    results: Type.Array(EvaluationDetailSchema, {
      description: 'One detail per requested key (in request order), or per flag sorted by key.',
    }),
  },
  { title: 'EvaluationBatch' },
);

const allowHeader = { allow: { type: 'string', description: 'Always `POST`.' } };

export const evaluateResponses: Record<number, TSchema> = {
  200: Type.Union([EvaluationDetailSchema, EvaluationBatchSchema], {
    description:
      'One detail with flagKey; otherwise the batch. Failed evaluations are details with reason ERROR, not errors.',
  }),
  ...legacyErrorResponses(400, 401, 'server_key_required', 413, 500, 'config_invalid'),
  405: { ...legacyErrorResponses('method_not_allowed')[405]!, headers: allowHeader } as TSchema,
};

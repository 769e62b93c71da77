// The contract's error bodies as schemas, so every route documents its errors in the OpenAPI document.
import { Type, type TSchema } from '@sinclair/typebox';
import {
  ERROR_CATALOGUE,
  ERROR_CODES,
  GENERIC_CODE_OF_STATUS,
  type ErrorCode,
  type GenericStatus,
} from './error-catalogue.js';

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({
        description:
          'Machine-readable lower snake_case code: one of the catalogue (docs/errors.md); each error response lists the codes it can carry in x-error-codes.',
      }),
      message: Type.String(),
      resolution: Type.String({ description: 'What the caller can do about it.' }),
      requestId: Type.String(),
      details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
      metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

export const LegacyErrorBody = Type.Object(
  {
    error: Type.String({ description: 'HTTP reason phrase.' }),
    code: Type.String({ description: 'UPPER_SNAKE code.' }),
    message: Type.String(),
    resolution: Type.String(),
    details: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), {
        description: 'On validation errors: the fields at fault.',
      }),
    ),
  },
  { $id: 'LegacyErrorBody', title: 'LegacyError' },
);

const descriptions: Record<number, string> = {
  304: 'Not modified',
  400: 'Invalid request',
  401: 'Missing, invalid or revoked credential',
  403: 'The credential may not do this',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Deadline exceeded',
  409: 'Conflict',
  413: 'Body too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  429: 'Rate or quota limit reached',
  431: 'Headers too large',
  500: 'Internal error',
  503: 'Temporarily unavailable',
};

/**
 * What a route answers besides success: a status any route may answer (its platform code, see
 * GENERIC_CODE_OF_STATUS), or a code of the catalogue (its status from the catalogue).
 */
export type ErrorEntry = GenericStatus | ErrorCode;

/** What any route that takes an Idempotency-Key can answer about it. */
export const IDEMPOTENCY_ERRORS = [
  'idempotency_conflict',
  'idempotency_replay_expired',
] as const satisfies readonly ErrorCode[];

/** The extension listing, per error response, the catalogue codes it can carry (decision 0051). */
export const ERROR_CODES_EXTENSION = 'x-error-codes';

/** The codes of each status of `entries`, in the catalogue's order. */
export function codesByStatus(entries: readonly ErrorEntry[]): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>(entries.map((e) => (typeof e === 'number' ? GENERIC_CODE_OF_STATUS[e] : e)));
  const out = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODES) {
    if (!codes.has(code)) continue;
    const status = ERROR_CATALOGUE[code].status;
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

function responses(body: TSchema, entries: readonly ErrorEntry[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const [status, codes] of codesByStatus(entries)) {
    out[status] = Type.Ref(body, { description: descriptions[status] ?? 'Error', [ERROR_CODES_EXTENSION]: codes });
  }
  return out;
}

/**
 * Response map entries for the listed errors, in the contract's error shape; each status carries
 * the codes it can answer (`x-error-codes`), so the OpenAPI document lists every route's codes.
 */
export function errorResponses(...entries: ErrorEntry[]): Record<number, TSchema> {
  return responses(ErrorBody, entries);
}

/** Same, in the frozen legacy shape of the three environment-key routes (codes in UPPER_SNAKE there). */
export function legacyErrorResponses(...entries: ErrorEntry[]): Record<number, TSchema> {
  return responses(LegacyErrorBody, entries);
}

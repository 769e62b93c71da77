// The contract's error bodies as schemas, so every route documents its errors in the OpenAPI document.
import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable lower snake_case code.' }),
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
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: 'On validation errors: the fields at fault.' })),
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
  415: 'Unsupported media type',
  429: 'Rate or quota limit reached',
  500: 'Internal error',
  503: 'Temporarily unavailable',
};

/** Response map entries for the listed error statuses, in the contract's error shape. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = Type.Ref(ErrorBody, { description: descriptions[s] ?? 'Error' });
  return out;
}

/** Same, in the frozen legacy shape of the three environment-key routes. */
export function legacyErrorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = Type.Ref(LegacyErrorBody, { description: descriptions[s] ?? 'Error' });
  return out;
}

// The typed API client: openapi-fetch over the types generated from the server's OpenAPI document
// (api-types.ts), so a request or answer that drifts from the API does not compile.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './api-types';
import { clearSession, getSession } from '../auth/session';

/** The contract's error body: `{ error: { code, message, resolution, requestId, details?, metadata? } }`. */
export interface ApiErrorBody {
  code: string;
  message: string;
  resolution?: string;
  requestId?: string;
  details?: { path: string; message: string }[];
  metadata?: Record<string, unknown>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message);
    this.name = 'ApiError';
  }
  get code(): string {
    return this.body.code;
  }
}

/** Reads an error answer of either shape (the contract's, or the legacy routes' flat one). */
export function apiErrorOf(status: number, payload: unknown): ApiError {
  const p = payload as {
    error?: unknown;
    code?: unknown;
    message?: unknown;
    resolution?: unknown;
    details?: unknown;
  } | null;
  if (p && typeof p.error === 'object' && p.error !== null) return new ApiError(status, p.error as ApiErrorBody);
  if (p && typeof p.code === 'string') {
    return new ApiError(status, {
      code: p.code,
      message: String(p.message ?? ''),
      resolution: typeof p.resolution === 'string' ? p.resolution : undefined,
      details: p.details as ApiErrorBody['details'],
    });
  }
  return new ApiError(status, {
    code: status >= 500 ? 'internal_error' : 'unexpected_answer',
    message: `The server answered ${status}.`,
  });
}

const authenticate: Middleware = {
  onRequest({ request }) {
    const session = getSession();
    if (session && !request.headers.has('authorization'))
      request.headers.set('authorization', `Bearer ${session.token}`);
    return request;
  },
  onResponse({ response, request }) {
    // A token that expired or was revoked elsewhere: forget it; the router then asks to sign in.
    if (response.status === 401 && request.headers.get('authorization')?.startsWith('Bearer cli_')) clearSession();
    return response;
  },
};

export const api = createClient<paths>({
  baseUrl: typeof location === 'undefined' ? 'http://localhost' : location.origin,
});
api.use(authenticate);

/** Turns openapi-fetch's `{ data, error, response }` into the data or a thrown ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw apiErrorOf(response.status, error);
  return data as T;
}

/** A fresh Idempotency-Key for a create: a retried request then replays instead of creating twice. */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}

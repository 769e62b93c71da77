// Domain errors carry everything the contract's error body needs; the error handler renders them.
import type { CodeOfStatus, ErrorCode, LegacyCode, StatusOf } from './error-catalogue.js';

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  resolution?: string;
  details?: ErrorDetail[];
  metadata?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Code used on the legacy environment-key routes (UPPER_SNAKE). */
  legacyCode?: LegacyCode;
  /** The failure this error stands for: it reaches the error log (with its stack), never the answer. */
  cause?: unknown;
}

/**
 * An error the service answers. The code is one of the catalogue (error-catalogue.ts) and the status
 * the catalogue's for it: `new AppError(404, 'flag_exists', …)` does not compile.
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly statusCode: StatusOf<C>;
  readonly code: C;
  readonly resolution: string;
  readonly details?: ErrorDetail[];
  readonly metadata?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly legacyCode?: LegacyCode;

  constructor(statusCode: StatusOf<C>, code: C, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.statusCode = statusCode;
    this.code = code;
    this.resolution = options.resolution ?? defaultResolution(statusCode);
    this.details = options.details;
    this.metadata = options.metadata;
    this.headers = options.headers;
    this.legacyCode = options.legacyCode;
  }
}

function defaultResolution(status: number): string {
  switch (status) {
    case 400:
      return 'Fix the request as described and send it again.';
    case 401:
      return 'Send a valid credential in the Authorization header: Bearer <token>.';
    case 403:
      return 'Use a credential that has access to this resource.';
    case 404:
      return 'Check the identifiers in the request.';
    case 409:
      return 'Read the current state and retry with matching preconditions.';
    case 413:
      return 'Send a smaller request body.';
    case 414:
      return 'Shorten the URL (a path parameter may be at most 512 characters).';
    case 429:
      return 'Wait for the time given in Retry-After, then retry.';
    case 503:
      return 'Retry shortly.';
    default:
      if (status >= 400 && status < 500) return 'Fix the request as described and send it again.';
      return 'Retry later; if the problem persists, contact the operator with the request id.';
  }
}

export const validationError = (message: string, details?: ErrorDetail[], resolution?: string) =>
  new AppError(400, 'validation_error', message, { details, resolution });

export const forbidden = (message = 'This credential cannot access this resource.') =>
  new AppError(403, 'forbidden', message);

export const notFound = (what: string) =>
  new AppError(404, 'not_found', `${what} was not found.`, { resolution: 'Check the identifiers in the request.' });

export const payloadTooLarge = () =>
  new AppError(413, 'payload_too_large', 'The request body is larger than this route accepts.', {
    legacyCode: 'PAYLOAD_TOO_LARGE',
  });

export const conflict = (code: CodeOfStatus<409>, message: string, options?: AppErrorOptions) =>
  new AppError(409, code, message, options);

export const versionConflict = (current: number, field: 'currentVersion' | 'currentRevision' = 'currentVersion') =>
  new AppError(
    409,
    'version_conflict',
    `The precondition does not match the current ${field === 'currentVersion' ? 'version' : 'revision'} (${current}).`,
    {
      metadata: { [field]: current },
      resolution: 'Read the current state, then retry with its version.',
    },
  );

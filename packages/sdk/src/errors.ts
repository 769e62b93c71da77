// The SDK's one error type. `code` says what happened; `fatal` errors (a key the server refuses)
// stop the client, every other one is retried while the last good document keeps being served.

export type EnsignErrorCode =
  /** 401 or 403: the key is missing, unknown, revoked or of the wrong type. Fatal. */
  | 'unauthorized'
  /** ready() waited longer than its timeout. */
  | 'timeout'
  /** The client was closed. */
  | 'closed'
  /** A document that is not a valid core/v1 document (bootstrap, persisted copy or server). */
  | 'invalid_document'
  /** 429 or 503: the server asked to come back later (Retry-After is honoured). */
  | 'throttled'
  /** The server could not be reached, or answered something unexpected. */
  | 'unavailable';

export class EnsignError extends Error {
  override readonly name = 'EnsignError';

  constructor(
    readonly code: EnsignErrorCode,
    message: string,
    /** The HTTP status of the answer that caused it, when there was one. */
    readonly status?: number,
  ) {
    super(message);
  }

  get fatal(): boolean {
    return this.code === 'unauthorized';
  }
}

/** What was thrown, as an EnsignError (a fetch failure becomes `unavailable`). */
export function asEnsignError(error: unknown): EnsignError {
  if (error instanceof EnsignError) return error;
  return new EnsignError('unavailable', error instanceof Error ? error.message : String(error));
}

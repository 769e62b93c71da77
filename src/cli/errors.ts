// The failures the CLI reports, each with its exit code: the server answered with an error (1), the
// command line or a local file is wrong (2), the server cannot be reached (3).

export const EXIT_API = 1;
export const EXIT_USAGE = 2;
export const EXIT_NETWORK = 3;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly resolution?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string, resolution?: string) {
    super(message, EXIT_USAGE, resolution);
    this.name = 'UsageError';
  }
}

export class NetworkError extends CliError {
  constructor(url: string, cause: string) {
    super(
      `cannot reach ${url}: ${cause}`,
      EXIT_NETWORK,
      'Check --url / ENSIGN_URL and that the Ensign server is running.',
    );
    this.name = 'NetworkError';
  }
}

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    resolution: string | undefined,
    readonly body: unknown,
    readonly requestId?: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message, EXIT_API, resolution);
    this.name = 'ApiError';
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Reads an error response in either shape: `{ error: { code, message, resolution, requestId, details } }`
 * or the legacy `{ error: "Unauthorized", code, message, resolution }` of the environment-key routes.
 */
export function apiErrorFrom(status: number, body: unknown, rawText: string, requestId?: string): ApiError {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (b.error && typeof b.error === 'object') {
    const e = b.error as Record<string, unknown>;
    const details = Array.isArray(e.details)
      ? e.details
          .filter((d): d is ErrorDetail => !!d && typeof d === 'object')
          .map((d) => ({ path: String(d.path ?? ''), message: String(d.message ?? '') }))
      : [];
    return new ApiError(
      status,
      str(e.code) ?? `http_${status}`,
      str(e.message) ?? `HTTP ${status}`,
      str(e.resolution),
      body,
      str(e.requestId) ?? requestId,
      details,
    );
  }
  if (typeof b.error === 'string' || str(b.code) || str(b.message)) {
    const message = str(b.message) ?? str(b.error) ?? `HTTP ${status}`;
    return new ApiError(status, str(b.code) ?? `http_${status}`, message, str(b.resolution), body, requestId);
  }
  const text = rawText.trim().slice(0, 200);
  return new ApiError(
    status,
    `http_${status}`,
    text ? `HTTP ${status}: ${text}` : `HTTP ${status}`,
    undefined,
    body,
    requestId,
  );
}

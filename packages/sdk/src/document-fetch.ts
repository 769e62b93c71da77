// One request for the core/v1 document (GET /api/v1/advanced-config) with the tag held in
// If-None-Match, classified into what the client does next.
import type { CoreDocument } from '@ensign/engine/core';
import { EnsignError } from './errors.js';
import { retryAfterMs } from './timers.js';

export const DOCUMENT_PATH = '/api/v1/advanced-config';
/** The response header that names the change stream of the key's environment (decision 0044). */
export const STREAM_HEADER = 'x-ensign-event-stream';

export interface Connection {
  /** The service's base URL, without a trailing slash. */
  readonly url: string;
  readonly key: string;
  readonly fetch: typeof fetch;
}

export type DocumentOutcome =
  | { kind: 'document'; text: string; document: CoreDocument; etag: string | null; streamUri: string | null }
  | { kind: 'not_modified'; streamUri: string | null }
  | { kind: 'failed'; error: EnsignError; retryAfterMs?: number };

export async function fetchDocument(
  connection: Connection,
  etag: string | null,
  signal: AbortSignal,
  now: number,
): Promise<DocumentOutcome> {
  const headers: Record<string, string> = { authorization: `Bearer ${connection.key}`, accept: 'application/json' };
  if (etag !== null) headers['if-none-match'] = etag;
  let response: Response;
  try {
    response = await connection.fetch(connection.url + DOCUMENT_PATH, { headers, signal });
  } catch (error) {
    return {
      kind: 'failed',
      error: new EnsignError(
        'unavailable',
        `Could not reach ${connection.url}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    };
  }
  const streamUri = response.headers.get(STREAM_HEADER);
  if (response.status === 304) return { kind: 'not_modified', streamUri };
  if (response.status === 200) {
    try {
      const text = await response.text();
      return {
        kind: 'document',
        text,
        document: JSON.parse(text) as CoreDocument,
        etag: response.headers.get('etag'),
        streamUri,
      };
    } catch (error) {
      return {
        kind: 'failed',
        error: new EnsignError(
          'unavailable',
          `The document could not be read: ${error instanceof Error ? error.message : String(error)}`,
          200,
        ),
      };
    }
  }
  const detail = await errorMessage(response);
  if (response.status === 401 || response.status === 403) {
    return {
      kind: 'failed',
      error: new EnsignError(
        'unauthorized',
        `The server refused the key (${response.status}${detail}). Check that it is an unrevoked sdk_ or pub_ key of the environment.`,
        response.status,
      ),
    };
  }
  const retryAfter = retryAfterMs(response.headers.get('retry-after'), now);
  const code = response.status === 429 || response.status === 503 ? 'throttled' : 'unavailable';
  return {
    kind: 'failed',
    error: new EnsignError(code, `The server answered ${response.status}${detail}.`, response.status),
    retryAfterMs: retryAfter,
  };
}

/** `: <code>: <message>` from the service's error body, or nothing. */
async function errorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    return body.error?.code ? `: ${body.error.code}: ${body.error.message ?? ''}` : '';
  } catch {
    return '';
  }
}

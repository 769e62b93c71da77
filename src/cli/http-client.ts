// The CLI's only way to the service: fetch with the CLI's headers, JSON in and out, and errors turned
// into ApiError (the server answered) or NetworkError (it could not be reached). Two ways in, one
// exchange underneath: `api`, typed from the served OpenAPI document (api.ts), for the commands
// that use it, and request/get/post/patch/delete with a caller-named type for the others.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../api-types/index.js';
import { ApiError, NetworkError, UsageError, apiErrorFrom } from './errors.js';

export const CLI_VERSION = '0.1.0';
const TIMEOUT_MS = 60_000;

export type QueryValue = string | number | boolean | undefined | null;

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  /** undefined: the client's token; null: no credential; a string: that token. */
  token?: string | null;
  /** Statuses other than 2xx to hand back instead of throwing (e.g. 304). */
  accept?: number[];
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ClientOptions {
  baseUrl: string;
  token?: string;
}

function describeCause(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  if (e?.cause?.message) return e.cause.message;
  if (e?.cause?.code) return e.cause.code;
  return e?.message ?? String(err);
}

const parseBody = (text: string): unknown => {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export class ApiClient {
  readonly baseUrl: string;
  readonly token?: string;
  /**
   * Typed calls: paths, path and query parameters, bodies and answers as the server's OpenAPI
   * document declares them (`npm run generate:api-types`). A status outside 2xx throws ApiError, so
   * `data` is the answer; `ok()` of api.ts unwraps it.
   */
  readonly api: Client<paths>;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    try {
      const parsed = new URL(this.baseUrl);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new UsageError(
        `invalid server URL "${options.baseUrl}"`,
        'Give --url or ENSIGN_URL as http(s)://host:port.',
      );
    }
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: this.headersFor(this.token),
      fetch: async (request) => {
        const res = await this.exchange(request);
        if (!res.ok) throw await this.failure(res, this.token);
        return res;
      },
    });
  }

  url(path: string, query?: Record<string, QueryValue>): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  private headersFor(token: string | null | undefined, extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `ensign-cli/${CLI_VERSION}`,
      'x-ensign-source': 'cli',
      ...extra,
    };
    if (token) headers.authorization = `Bearer ${token}`;
    return headers;
  }

  /** One request on the wire, with the timeout; no answer at all is a NetworkError. */
  private async exchange(request: Request): Promise<Response> {
    try {
      return await fetch(request, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      throw new NetworkError(this.baseUrl, describeCause(err));
    }
  }

  /** The ApiError of an answer outside 2xx, with the login hint when no credential was sent. */
  private async failure(res: Response, token: string | null | undefined): Promise<ApiError> {
    const text = await res.text();
    const error = apiErrorFrom(res.status, parseBody(text), text, res.headers.get('x-request-id') ?? undefined);
    if (res.status === 401 && !token) {
      const hint = `Not logged in to ${this.baseUrl}: run \`ensign login --email <email>\` (add --url if the server is elsewhere) or set ENSIGN_TOKEN.`;
      return new ApiError(error.status, error.code, error.message, hint, error.body, error.requestId, error.details);
    }
    return error;
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const token = options.token === undefined ? this.token : options.token;
    const headers = this.headersFor(token, options.headers);
    let payload: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(options.body);
    }
    const res = await this.exchange(new Request(this.url(path, options.query), { method, headers, body: payload }));
    if (!res.ok && !options.accept?.includes(res.status)) throw await this.failure(res, token);
    const text = res.status === 204 || res.status === 304 ? '' : await res.text();
    return { status: res.status, headers: res.headers, body: parseBody(text) as T, text };
  }

  get<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = unknown>(path: string, body: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }

  patch<T = unknown>(path: string, body: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }

  delete<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}

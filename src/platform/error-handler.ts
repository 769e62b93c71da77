// Renders every failure in the contract's error body: domain errors, schema validation, body limits,
// malformed JSON, unknown routes and unexpected faults (which never leak stack traces or SQL).
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type {
  ConnectionError,
  FastifyContextConfig,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.js';
import { isDatabaseUnavailable } from '../db/constraint-errors.js';
import { AppError, payloadTooLarge, type ErrorDetail } from './errors.js';
import { isWritableHeader } from './header-values.js';
import { newId } from './ids.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answer errors in the frozen legacy shape (environment-key routes). */
    legacyErrors?: boolean;
  }
}

function upperSnake(code: string): string {
  return code.toUpperCase();
}

type SchemaIssue = NonNullable<FastifyError['validation']>[number];

/** Allowed values as a reader would write them: strings bare, anything else as JSON. */
const listed = (values: readonly unknown[]) =>
  values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

/** The one value a failed branch of a union stood for (a literal or null), if it stood for one. */
function branchValue(issue: SchemaIssue): { value: unknown } | null {
  const params = issue.params as Record<string, unknown>;
  if (issue.keyword === 'const') return { value: params.allowedValue };
  if (issue.keyword === 'type' && params.type === 'null') return { value: null };
  return null;
}

/**
 * Ajv's issues with the allowed values named once: a union of literals fails each branch ("must be
 * equal to constant", once per allowed value: 21 times for a rule operator) and then the union
 * itself; that becomes one "must be one of: in, notIn, …". A single literal or an enum names its
 * values as well.
 */
function withAllowedValues(issues: readonly SchemaIssue[]): { issue: SchemaIssue; message?: string }[] {
  const out: { issue: SchemaIssue; message?: string }[] = [];
  let pending: SchemaIssue[] = [];
  for (const issue of issues) {
    if (issue.keyword !== 'anyOf' && issue.keyword !== 'oneOf') {
      pending.push(issue);
      continue;
    }
    const branches = pending.filter((b) => b.schemaPath.startsWith(`${issue.schemaPath}/`));
    const values = branches.map(branchValue);
    if (branches.length > 0 && branches.every((b, i) => b.instancePath === issue.instancePath && values[i] !== null)) {
      pending = pending.filter((b) => !branches.includes(b));
      out.push(...pending.map((b) => ({ issue: b })), {
        issue,
        message: `must be one of: ${listed(values.map((v) => v!.value))}`,
      });
    } else {
      out.push(...pending.map((b) => ({ issue: b })), { issue });
    }
    pending = [];
  }
  out.push(...pending.map((issue) => ({ issue })));
  return out;
}

function validationDetails(error: FastifyError): ErrorDetail[] {
  const context = (error as { validationContext?: string }).validationContext ?? 'body';
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const { issue: v, message: summary } of withAllowedValues(error.validation ?? [])) {
    const params = v.params as Record<string, unknown>;
    let path = v.instancePath || '';
    if (v.keyword === 'additionalProperties' && params.additionalProperty) path += `/${params.additionalProperty}`;
    if (v.keyword === 'required' && params.missingProperty) path += `/${params.missingProperty}`;
    const where = context === 'body' ? path || '/' : `${context}${path ? path.replace(/^\//, '.') : ''}`;
    let message = summary ?? v.message ?? 'is invalid';
    if (v.keyword === 'additionalProperties') message = 'is not an allowed field';
    if (v.keyword === 'required') message = 'is required';
    if (v.keyword === 'const') message = `must be ${JSON.stringify(params.allowedValue)}`;
    if (v.keyword === 'enum' && Array.isArray(params.allowedValues))
      message = `must be one of: ${listed(params.allowedValues)}`;
    const key = `${where}\n${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ path: where, message });
  }
  return details;
}

/** The catalogue's code for a framework (or plugin) error of these statuses. */
const FRAMEWORK_CODES: Partial<Record<number, ErrorCode>> = {
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
};

/** Translates framework errors into domain errors so one renderer handles everything. */
export function toAppError(error: FastifyError | AppError | Error): AppError {
  if (error instanceof AppError) return error;
  const fe = error as FastifyError;
  if (fe.validation) {
    const details = validationDetails(fe);
    const first = details[0];
    return new AppError(400, 'validation_error', first ? `${first.path} ${first.message}` : 'The request is invalid.', {
      details,
      resolution: 'Correct the fields listed in details and send the request again.',
    });
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'unsupported_media_type', 'Send the body as application/json.', {
        resolution: 'Set Content-Type: application/json.',
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'validation_error', 'The request body is empty but JSON was declared.', {
        legacyCode: 'VALIDATION_ERROR',
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, 'validation_error', 'The request body is not valid JSON.', {
        legacyCode: 'VALIDATION_ERROR',
      });
  }
  if (fe instanceof SyntaxError || fe.name === 'SyntaxError') {
    return new AppError(400, 'validation_error', 'The request body is not valid JSON.', {
      legacyCode: 'VALIDATION_ERROR',
    });
  }
  // The database away (a restart, a failover, a cut network) is a passing state, not a fault of the
  // request or of Ensign: every route says so the same way, whichever query met it first.
  if (isDatabaseUnavailable(fe)) {
    return new AppError(
      503,
      'service_unavailable',
      'The database is unreachable right now; nothing of this request was changed.',
      {
        legacyCode: 'SERVICE_UNAVAILABLE',
        resolution: 'Retry after Retry-After seconds (the same request, with the same Idempotency-Key if it had one).',
        headers: { 'retry-after': '1' },
      },
    );
  }
  const status = fe.statusCode ?? 500;
  const generic = FRAMEWORK_CODES[status];
  if (generic) return new AppError<typeof generic>(ERROR_CATALOGUE[generic].status, generic, fe.message);
  // Fastify's other client errors (a URL it cannot decode, say) are requests it could not read.
  if (status >= 400 && status < 500) return new AppError(400, 'validation_error', fe.message);
  // Anything else is a defect: it keeps its cause, which the error log shows with its stack.
  return new AppError(500, 'internal_error', 'An unexpected error occurred.', {
    legacyCode: 'INTERNAL_ERROR',
    resolution: 'Retry later; if the problem persists, contact the operator with the request id.',
    cause: error,
  });
}

/** An error as it goes out: status, the error's headers and a JSON body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a renderer may know of the request that failed. */
export interface ErrorSubject {
  requestId: string;
  /** The route's config (legacyErrors), or undefined before routing. */
  config: FastifyContextConfig | undefined;
  params: unknown;
}

/**
 * Renders an error as the answer to send. Pure (no request or reply objects), so the fast lane
 * (fast-lane.ts) answers its errors with the very function Fastify's error handler uses.
 */
export type ErrorRenderer = (error: Error, subject: ErrorSubject) => ErrorAnswer;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Renders this route's errors in a protocol's own body (OFREP's, say) instead of the contract's. */
    errorRenderer?: ErrorRenderer;
  }
}

/** The contract's error body (or the frozen legacy one on routes with `legacyErrors`). */
export const contractErrors: ErrorRenderer = (error, subject) => {
  const appError = toAppError(error);
  const body = subject.config?.legacyErrors
    ? {
        error: STATUS_CODES[appError.statusCode] ?? 'Error',
        code: appError.legacyCode ?? upperSnake(appError.code),
        message: appError.message,
        resolution: appError.resolution,
        // A validation error's resolution sends the reader to its details: they are given here too.
        ...(appError.details ? { details: appError.details } : {}),
      }
    : {
        error: {
          code: appError.code,
          message: appError.message,
          resolution: appError.resolution,
          requestId: subject.requestId,
          ...(appError.details ? { details: appError.details } : {}),
          ...(appError.metadata ? { metadata: appError.metadata } : {}),
        },
      };
  return { status: appError.statusCode, headers: appError.headers ?? {}, body: JSON.stringify(body) };
};

/** The renderer of a route: its own, or the contract's. */
export function errorRendererOf(config: FastifyContextConfig | undefined): ErrorRenderer {
  return config?.errorRenderer ?? contractErrors;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends `error` through Fastify, rendered by `render`; 5xx are logged with the request's logger. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: Error,
  render: ErrorRenderer = errorRendererOf(request.routeOptions.config),
) {
  const answer = render(error, { requestId: request.id, config: request.routeOptions.config, params: request.params });
  if (answer.status >= 500) request.log.error({ err: error }, 'request failed');
  // The failure may be Node refusing a header the answer set (writeHead throws, and Fastify then
  // comes here): no such header may stop the error body, with its request id, from going out.
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (!isWritableHeader(name, value)) reply.removeHeader(name);
  return reply.code(answer.status).headers(writableHeaders(answer.headers)).type(JSON_TYPE).send(answer.body);
}

/** The headers of `headers` Node would write (an error's own headers must not fail its answer). */
export function writableHeaders(headers: Record<string, string>): Record<string, string> {
  for (const name in headers) {
    if (!isWritableHeader(name, headers[name]))
      return Object.fromEntries(Object.entries(headers).filter(([n, v]) => isWritableHeader(n, v)));
  }
  return headers;
}

/**
 * Errors Fastify raises before routing (a URL that cannot be decoded, an over-long parameter): no
 * hook has run yet, so the request id is set here, and the body has the contract's shape, or that
 * of the protocol served under the URL's prefix (`renderers`, by path prefix).
 */
export function frameworkErrorHandler(renderers: Record<string, ErrorRenderer> = {}) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    const prefix = Object.keys(renderers).find((p) => request.url.startsWith(p));
    sendError(request, reply, error, prefix === undefined ? contractErrors : renderers[prefix]!);
  };
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error as Error));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError(404, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}.`, {
        resolution: 'See /api/v1/openapi for the routes this service offers.',
      }),
    ),
  );
}

/** What Node's HTTP parser reports with a request it could not read (Fastify's type says less). */
interface ClientError extends Error {
  code?: string;
  /** The bytes of the request so far (Node sets it for parse errors). */
  rawPacket?: Buffer;
}

function clientErrorOf(code: string | undefined): AppError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError(408, 'request_timeout', 'The request was not received in time.', {
        resolution: 'Send the whole request without pausing.',
      });
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        431,
        'headers_too_large',
        'The request headers are larger than the server accepts (16 KiB in all).',
        {
          resolution: 'Send fewer or shorter headers (cookies included).',
        },
      );
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new AppError(
        400,
        'validation_error',
        'The Content-Length header is not a valid length, or conflicts with Transfer-Encoding.',
        { legacyCode: 'VALIDATION_ERROR' },
      );
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return new AppError(400, 'validation_error', 'The request body is not validly chunked.', {
        legacyCode: 'VALIDATION_ERROR',
      });
    default:
      return new AppError(400, 'validation_error', 'The request is not valid HTTP/1.1.', {
        legacyCode: 'VALIDATION_ERROR',
      });
  }
}

/** The target of the request line in the bytes Node could read, when there is one. */
function targetOf(rawPacket: Buffer | undefined): string {
  if (rawPacket === undefined) return '';
  const line = rawPacket.subarray(0, Math.min(rawPacket.length, 8192)).toString('latin1');
  const first = line.indexOf(' ');
  const second = first < 0 ? -1 : line.indexOf(' ', first + 1);
  return second < 0 ? '' : line.slice(first + 1, second);
}

/**
 * Fastify's `clientErrorHandler`: Node could not read a request (oversized headers, a malformed
 * Content-Length or request line, a request timeout), so there is no request to route and no hook
 * runs. The answer still has the contract's error body, a request id and, under a prefix of
 * `headersByPrefix` (OFREP's, where browsers read errors), that prefix's CORS headers.
 */
export function clientErrorHandler(headersByPrefix: Record<string, Record<string, string>> = {}) {
  return function handleClientError(this: FastifyInstance, connectionError: ConnectionError, socket: Socket) {
    const error = connectionError as unknown as ClientError;
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const appError = clientErrorOf(error.code);
    const requestId = newId('req');
    this.log.debug({ err: error, requestId }, 'client error');
    const body = JSON.stringify({
      error: { code: appError.code, message: appError.message, resolution: appError.resolution, requestId },
    });
    const target = targetOf(error.rawPacket);
    let extra = '';
    for (const prefix in headersByPrefix) {
      if (!target.startsWith(prefix)) continue;
      for (const [name, value] of Object.entries(headersByPrefix[prefix]!)) extra += `${name}: ${value}\r\n`;
    }
    if (socket.writable) {
      socket.end(
        `HTTP/1.1 ${appError.statusCode} ${STATUS_CODES[appError.statusCode]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\n${extra}connection: close\r\n\r\n${body}`,
      );
    }
    // The client may never close its side: do not keep the socket past a short grace.
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}

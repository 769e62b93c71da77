// Renders every failure in the contract's error body: domain errors, schema validation, body limits,
// malformed JSON, unknown routes and unexpected faults (which never leak stack traces or SQL).
import { STATUS_CODES } from 'node:http';
import type { FastifyContextConfig, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, payloadTooLarge, type ErrorDetail } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answer errors in the frozen legacy shape (environment-key routes). */
    legacyErrors?: boolean;
  }
}

function upperSnake(code: string): string {
  return code.toUpperCase();
}

function validationDetails(error: FastifyError): ErrorDetail[] {
  const context = (error as { validationContext?: string }).validationContext ?? 'body';
  return (error.validation ?? []).map((v) => {
    const params = v.params as Record<string, unknown>;
    let path = v.instancePath || '';
    if (v.keyword === 'additionalProperties' && params.additionalProperty) path += `/${params.additionalProperty}`;
    if (v.keyword === 'required' && params.missingProperty) path += `/${params.missingProperty}`;
    const where = context === 'body' ? path || '/' : `${context}${path ? path.replace(/^\//, '.') : ''}`;
    let message = v.message ?? 'is invalid';
    if (v.keyword === 'additionalProperties') message = 'is not an allowed field';
    if (v.keyword === 'required') message = 'is required';
    return { path: where, message };
  });
}

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
      return new AppError(415, 'unsupported_media_type', 'Send the body as application/json.', { resolution: 'Set Content-Type: application/json.' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'validation_error', 'The request body is empty but JSON was declared.', { legacyCode: 'VALIDATION_ERROR' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, 'validation_error', 'The request body is not valid JSON.', { legacyCode: 'VALIDATION_ERROR' });
  }
  if (fe instanceof SyntaxError || fe.name === 'SyntaxError') {
    return new AppError(400, 'validation_error', 'The request body is not valid JSON.', { legacyCode: 'VALIDATION_ERROR' });
  }
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new AppError(status, status === 404 ? 'not_found' : 'validation_error', fe.message);
  }
  return new AppError(500, 'internal_error', 'An unexpected error occurred.', {
    legacyCode: 'INTERNAL_ERROR',
    resolution: 'Retry later; if the problem persists, contact the operator with the request id.',
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
export function sendError(request: FastifyRequest, reply: FastifyReply, error: Error, render: ErrorRenderer = errorRendererOf(request.routeOptions.config)) {
  const answer = render(error, { requestId: request.id, config: request.routeOptions.config, params: request.params });
  if (answer.status >= 500) request.log.error({ err: error }, 'request failed');
  return reply.code(answer.status).headers(answer.headers).type(JSON_TYPE).send(answer.body);
}

/**
 * Errors Fastify raises before routing (a URL that cannot be decoded, an over-long parameter): no
 * hook has run yet, so the request id is set here, and the body has the contract's shape, or that
 * of the protocol served under the URL's prefix (`renderers`, by path prefix).
 */
export function frameworkErrorHandler(renderers: Record<string, ErrorRenderer> = {}) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    for (const prefix in renderers) if (request.url.startsWith(prefix)) return sendError(request, reply, error, renderers[prefix]!);
    return sendError(request, reply, error, contractErrors);
  };
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error as Error));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError(404, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}.`, {
      resolution: 'See /api/v1/openapi for the routes this service offers.',
    })),
  );
}

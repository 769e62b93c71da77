// Errors on the OFREP routes in OFREP's shape: a JSON body with a string `errorCode`, `errorDetails`
// and, on the single-flag route, the flag `key` (what OpenFeature providers read; they map a
// body-less or non-JSON error to a generic failure). Statuses and headers (WWW-Authenticate,
// Retry-After) are the platform's; only the body differs from the contract's error shape.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { toAppError } from '../../platform/error-handler.js';
import { PUBLIC_CORS_RESPONSE_HEADERS } from '../delivery/index.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Fastify's codes for a body that is not JSON at all: OFREP calls that PARSE_ERROR. */
const UNPARSABLE = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);

/** Fastify's codes for a URL it could not route (undecodable, or a parameter past the limit). */
const UNROUTABLE = new Set(['FST_ERR_BAD_URL']);

function errorCodeOf(error: FastifyError | Error, appError: AppError): string {
  const code = (error as FastifyError).code;
  if ((code !== undefined && UNROUTABLE.has(code)) || appError.statusCode === 414) return 'GENERAL';
  if (appError.statusCode === 400) {
    if ((code !== undefined && UNPARSABLE.has(code)) || error instanceof SyntaxError) return 'PARSE_ERROR';
    // A body that parsed but does not have the request's shape: the context is what is wrong.
    if (appError.code === 'validation_error') return 'INVALID_CONTEXT';
  }
  if (appError.statusCode >= 500 && appError.code === 'internal_error') return 'GENERAL';
  return appError.legacyCode ?? appError.code.toUpperCase();
}

export function sendOfrepError(request: FastifyRequest, reply: FastifyReply, error: FastifyError | Error) {
  const appError = toAppError(error as FastifyError);
  if (appError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  if (appError.headers) reply.headers(appError.headers);
  // The scope's CORS hook has not run for errors raised before routing (an undecodable URL, a key
  // past the length limit): a browser could not read them although its preflight was allowed.
  reply.headers(PUBLIC_CORS_RESPONSE_HEADERS);
  const key = (request.params as { key?: unknown } | undefined)?.key;
  return reply
    .code(appError.statusCode)
    .type(JSON_TYPE)
    .send(JSON.stringify({ ...(typeof key === 'string' ? { key } : {}), errorCode: errorCodeOf(error, appError), errorDetails: appError.message }));
}

/** Installs the OFREP error and not-found handlers on the scope holding the OFREP routes. */
export function registerOfrepErrors(scope: FastifyInstance) {
  scope.setErrorHandler((error, request, reply) => sendOfrepError(request, reply, error as FastifyError));
  scope.setNotFoundHandler((request, reply) =>
    sendOfrepError(request, reply, new AppError(404, 'not_found', `No OFREP route ${request.method} ${request.url.split('?')[0]}.`)));
}

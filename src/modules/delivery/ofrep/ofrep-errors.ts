// Errors on the OFREP routes in OFREP's shape: a JSON body with a string `errorCode`, `errorDetails`
// and, on the single-flag route, the flag `key` (what OpenFeature providers read; they map a
// body-less or non-JSON error to a generic failure). Statuses and headers (WWW-Authenticate,
// Retry-After) are the platform's; only the body differs from the contract's error shape.
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../../../platform/errors.js';
import { sendError, toAppError, type ErrorRenderer } from '../../../platform/error-handler.js';
import { PUBLIC_CORS_RESPONSE_HEADERS } from '../../../platform/public-cors.js';

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

/** OFREP's error body; statuses and headers as the contract's renderer gives them. */
export const ofrepErrors: ErrorRenderer = (error, subject) => {
  const appError = toAppError(error);
  const key = (subject.params as { key?: unknown } | undefined)?.key;
  const body = JSON.stringify({
    ...(typeof key === 'string' ? { key } : {}),
    errorCode: errorCodeOf(error, appError),
    errorDetails: appError.message,
  });
  return { status: appError.statusCode, headers: appError.headers ?? {}, body };
};

/**
 * OFREP's errors raised before routing (an undecodable URL, a key past the length limit): the
 * scope's CORS hook has not run for them, so the headers are added here, or a browser could not read
 * the answer although its preflight was allowed. Routed errors get them from the scope's hook.
 */
export const ofrepFrameworkErrors: ErrorRenderer = (error, subject) => {
  const answer = ofrepErrors(error, subject);
  return { ...answer, headers: { ...answer.headers, ...PUBLIC_CORS_RESPONSE_HEADERS } };
};

/**
 * Renders the errors of every route of the OFREP scope with `ofrepErrors` (through the route's
 * config, which the fast lane reads too), and answers unknown OFREP paths in OFREP's shape. Call
 * before the scope's routes are declared.
 */
export function registerOfrepErrors(scope: FastifyInstance) {
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, errorRenderer: ofrepErrors };
  });
  scope.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError(404, 'not_found', `No OFREP route ${request.method} ${request.url.split('?')[0]}.`),
      ofrepErrors,
    ),
  );
}

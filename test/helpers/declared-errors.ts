// Every code a route answers is one its schema lists (x-error-codes, src/platform/error-schemas.ts):
// the lists are written by hand beside each route, so every route test checks them against what the
// handlers really throw. An answer whose code the route does not list for that status is recorded,
// and the test that provoked it fails when its app closes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES_EXTENSION } from '../../src/platform/error-schemas.js';
import { implementedByLane } from '../../src/platform/lane-hooks.js';

/**
 * Answers the platform gives on any route before or around its handler (a body over the limit, a
 * request too slow, a defect, storage away): documented once in docs/conventions.md, not per route.
 */
const PLATFORM_CODES = new Set([
  'payload_too_large',
  'unsupported_media_type',
  'request_timeout',
  'uri_too_long',
  'headers_too_large',
  'internal_error',
  'service_unavailable',
]);

type ResponseSchemas = Record<string, Record<string, unknown> | undefined>;

export function watchDeclaredErrors(app: FastifyInstance): () => string[] {
  const undeclared = new Set<string>();
  // The fast lane's routes answer without Fastify's hooks: they go unchecked here (their errors are
  // the delivery plane's few, listed in the lane's own tests).
  app.addHook(
    'onSend',
    implementedByLane(
      async function declaredErrors(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
        const url = request.routeOptions.url;
        if (reply.statusCode < 400 || url === undefined || typeof payload !== 'string') return payload;
        let code: unknown;
        try {
          code = (JSON.parse(payload) as { error?: { code?: unknown } }).error?.code;
        } catch {
          return payload; // not a JSON error body (the legacy routes' shape has a string `error`)
        }
        if (typeof code !== 'string' || PLATFORM_CODES.has(code)) return payload;
        const schema = request.routeOptions.schema as { hide?: boolean; response?: ResponseSchemas } | undefined;
        // Routes kept out of the OpenAPI document (the console's files) and routes a test adds without a
        // response schema document no errors to check.
        if (schema?.hide || schema?.response === undefined) return payload;
        const responses = schema.response;
        const listed = responses[String(reply.statusCode)]?.[ERROR_CODES_EXTENSION];
        if (!Array.isArray(listed) || !listed.includes(code))
          undeclared.add(`${request.method} ${url} ${reply.statusCode} ${code}`);
        return payload;
      },
      { name: 'declared error codes (tests only)' },
    ),
  );
  return () => [...undeclared].sort();
}

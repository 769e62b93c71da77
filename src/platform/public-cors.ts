// CORS for the routes browsers call with public (pub_) keys: the legacy public-config route, the OFREP
// routes and advanced configuration. pub_ keys are meant to be embedded in web pages, so any origin may
// call, with the bearer in a header (never cookies: credentials mode stays off).
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { implementedByLane, scopeHooksOf } from './lane-hooks.js';

export const PUBLIC_CORS_OPTIONS = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST'],
  allowedHeaders: ['Content-Type', 'Authorization', 'X-API-Key', 'If-None-Match'],
  exposedHeaders: [
    'ETag',
    'Retry-After',
    'X-Sync-Quota-Limit',
    'X-Sync-Quota-Remaining',
    'X-Request-Id',
    'X-Ensign-Event-Stream',
  ],
  maxAge: 600,
};

/** What the policy adds to every actual (non-preflight) answer, whatever the Origin: the wildcard
 * origin and the exposed headers. The fast lane adds these itself in place of the plugin's hook. */
export const PUBLIC_CORS_RESPONSE_HEADERS: Record<string, string> = {
  'access-control-allow-origin': PUBLIC_CORS_OPTIONS.origin,
  'access-control-expose-headers': PUBLIC_CORS_OPTIONS.exposedHeaders.join(', '),
};

/**
 * Enables CORS on every route of `scope`. Register the scope with the routes' common prefix: the
 * plugin answers preflights with a wildcard OPTIONS route under that prefix, so without one it would
 * answer preflights for the whole service.
 */
export async function registerPublicCors(scope: FastifyInstance): Promise<void> {
  if (!scope.prefix) throw new Error('registerPublicCors needs a scope registered with a prefix');
  const before = new Set(scopeHooksOf(scope).onRequest);
  await scope.register(cors, PUBLIC_CORS_OPTIONS);
  for (const hook of scopeHooksOf(scope).onRequest) {
    if (!before.has(hook)) implementedByLane(hook, { name: 'public CORS', headers: PUBLIC_CORS_RESPONSE_HEADERS });
  }
}

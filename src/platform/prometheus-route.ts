// GET /metrics: the Prometheus exposition of the app's registry (metrics.ts). Served to loopback
// clients only, unless the operator sets ENSIGN_METRICS_TOKEN: then to any client that sends it as a
// bearer token, and to no one without it (behind a proxy on the same host every client is loopback).
import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { errorResponses } from './error-schemas.js';
import { AppError } from './errors.js';
import type { Metrics } from './prometheus-metrics.js';

export interface MetricsRouteOptions {
  metrics: Metrics;
  /** The bearer token scrapers must send; undefined: loopback clients only. */
  token: string | undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

function isLoopback(address: string | undefined): boolean {
  return (
    address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
  );
}

function admit(request: FastifyRequest, token: string | undefined): void {
  if (token === undefined) {
    if (isLoopback(request.socket.remoteAddress)) return;
    throw new AppError(403, 'forbidden', 'Metrics are served to loopback clients only.', {
      resolution:
        'Scrape from the same host, or have the operator set ENSIGN_METRICS_TOKEN and send it as Authorization: Bearer <token>.',
    });
  }
  const sent = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  // Compared as digests: equal lengths, and in constant time.
  if (sent === undefined || !timingSafeEqual(digest(sent), digest(token))) {
    throw new AppError(401, 'unauthorized', 'Metrics need the metrics token.', {
      resolution: 'Send the token the operator set in ENSIGN_METRICS_TOKEN as Authorization: Bearer <token>.',
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
}

export const metricsRoutes: FastifyPluginAsync<MetricsRouteOptions> = async (app, { metrics, token }) => {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        operationId: 'prometheusMetrics',
        summary: 'Prometheus metrics (loopback clients, or the metrics token)',
        description:
          'Prometheus text format 0.0.4: HTTP requests and their latency by route, method and status; configuration syncs and refusals; ' +
          'evaluations by reason; snapshot rebuilds; change notifications; database pool use; process metrics. Served to loopback clients ' +
          'only (403 otherwise) unless the operator sets ENSIGN_METRICS_TOKEN, which must then be sent as a bearer token (401 without it).',
        security: [{}, { bearer: [] }],
        response: {
          200: Type.String({ description: 'Prometheus text exposition format 0.0.4' }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request, reply) => {
      admit(request, token);
      metrics.startProcessMetrics();
      const text = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(text);
    },
  );
};

// GET /api/v1/config (sdk_) and GET /api/v1/public-config (pub_): the frozen legacy delivery routes.
// The hot path: a Map lookup for the snapshot, an in-memory count, a string compare for 304, and
// the prebuilt bytes sent as a Buffer; ordinary requests are answered by the fast lane.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, RouteShorthandOptions } from 'fastify';
import { fastLaneRoute, type FastLaneAnswer, type FastLaneRouteOptions } from '../../../platform/fast-lane-route.js';
import type { EnvironmentPrincipal } from '../../../platform/principal.js';
import { DeliveryRequestHeaders, deliveryResponses } from './delivery.schemas.js';
import type { DeliveryService } from './delivery.service.js';
import { ifNoneMatchHits } from '../../../platform/entity-tag.js';
import type { Audience } from './legacy-envelope.js';
import type { SyncAdmission } from '../metering/index.js';
import type { Snapshot } from './snapshot.js';
import { registerPublicCors } from '../../../platform/public-cors.js';

export interface DeliveryRouteDeps {
  delivery: DeliveryService;
}

/** Options of a fast-lane route (platform/fast-lane.ts), which logs its request lines at debug. */
function routeOptions(audience: Audience, lane: FastLaneRouteOptions): RouteShorthandOptions {
  const server = audience === 'server';
  return {
    config: { legacyErrors: true, ...lane.config },
    schema: {
      tags: ['delivery'],
      operationId: server ? 'getConfig' : 'getPublicConfig',
      summary: server
        ? 'Legacy configuration document for server SDKs (sdk_ key)'
        : 'Legacy configuration document for client SDKs (pub_ key): clientEnabled flags only',
      description:
        "Answers 304 when If-None-Match holds the current ETag. Every 200 and 304 counts as one sync against the environment's monthly quota.",
      security: [{ bearer: [] }],
      headers: DeliveryRequestHeaders,
      response: deliveryResponses,
    },
  };
}

export const deliveryRoutes: FastifyPluginAsyncTypebox<DeliveryRouteDeps> = async (app, { delivery }) => {
  function respond(
    principal: EnvironmentPrincipal,
    ifNoneMatch: string | undefined,
    snapshot: Snapshot,
    quota: SyncAdmission,
  ): FastLaneAnswer {
    const { etag, headers: headerList } = snapshot.answerFor(principal.keyId);
    const headers = { 'x-sync-quota-limit': quota.limit, 'x-sync-quota-remaining': quota.remaining };
    // The prebuilt bytes and the key's prebuilt headers, sent as they are.
    return ifNoneMatchHits(ifNoneMatch, etag)
      ? { status: 304, headerList, headers }
      : { status: 200, headerList, headers, body: snapshot.body };
  }

  function admitted(
    principal: EnvironmentPrincipal,
    ifNoneMatch: string | undefined,
    snapshot: Snapshot,
  ): FastLaneAnswer | Promise<FastLaneAnswer> {
    const quota = delivery.admit(principal);
    return quota instanceof Promise
      ? quota.then((settled) => respond(principal, ifNoneMatch, snapshot, settled))
      : respond(principal, ifNoneMatch, snapshot, quota);
  }

  // Synchronous whenever the snapshot and the environment's count are in memory (nearly always):
  // no promise and no closure per request. The first sync of an environment waits for its reads.
  const deliver =
    (audience: Audience) =>
    ({ principal, headers }: { principal: EnvironmentPrincipal; headers: IncomingHttpHeaders }) => {
      const ifNoneMatch = headers['if-none-match'];
      const snapshot = delivery.snapshot(principal, audience);
      return snapshot instanceof Promise
        ? snapshot.then((settled) => admitted(principal, ifNoneMatch, settled))
        : admitted(principal, ifNoneMatch, snapshot);
    };

  // Each route admits only its audience's environment key.
  const server = fastLaneRoute({ allow: ['sdk'] })(deliver('server'));
  app.get('/api/v1/config', routeOptions('server', server), server.handler);

  // Browsers call the public route with pub_ keys: it lives in a scope of its own with CORS.
  const client = fastLaneRoute({ allow: ['pub'] })(deliver('client'));
  await app.register(
    async (scope: FastifyInstance) => {
      await registerPublicCors(scope);
      scope.get('', routeOptions('client', client), client.handler);
    },
    { prefix: '/api/v1/public-config' },
  );
};

// GET /api/v1/config (sdk_) and GET /api/v1/public-config (pub_): the frozen legacy delivery routes.
// The hot path: a Map lookup for the snapshot, an in-memory count, a string compare for 304, and
// the prebuilt bytes sent as a Buffer (Fastify does not serialise Buffers).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { EnvironmentPrincipal } from '../../platform/principal.js';
import { DeliveryRequestHeaders, deliveryResponses } from './delivery.schemas.js';
import type { DeliveryService } from './delivery.service.js';
import { ifNoneMatchHits } from './entity-tag.js';
import type { Audience } from './legacy-envelope.js';
import type { SyncAdmission } from '../metering/index.js';
import { quietRequestLogging } from './quiet-request-logger.js';
import type { Snapshot } from './snapshot.js';
import { registerPublicCors } from './public-cors.js';

export interface DeliveryRouteDeps {
  delivery: DeliveryService;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function routeOptions(audience: Audience): RouteShorthandOptions {
  const server = audience === 'server';
  return {
    config: { legacyErrors: true, auth: { allow: [server ? 'sdk' : 'pub'] } },
    childLoggerFactory: quietRequestLogging,
    schema: {
      tags: ['delivery'],
      operationId: server ? 'getConfig' : 'getPublicConfig',
      summary: server ? 'Legacy configuration document for server SDKs (sdk_ key)' : 'Legacy configuration document for client SDKs (pub_ key): clientEnabled flags only',
      description: 'Answers 304 when If-None-Match holds the current ETag. Every 200 and 304 counts as one sync against the environment\'s monthly quota.',
      security: [{ bearer: [] }],
      headers: DeliveryRequestHeaders,
      response: deliveryResponses,
    },
  };
}

export const deliveryRoutes: FastifyPluginAsyncTypebox<DeliveryRouteDeps> = async (app, { delivery }) => {
  function respond(request: FastifyRequest, reply: FastifyReply, principal: EnvironmentPrincipal, snapshot: Snapshot, quota: SyncAdmission): void {
    const etag = snapshot.etagFor(principal.keyId);
    reply.header('etag', etag);
    reply.header('cache-control', 'private, no-cache');
    reply.header('x-sync-quota-limit', quota.limit);
    reply.header('x-sync-quota-remaining', quota.remaining);
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) reply.code(304).send();
    else reply.header('content-type', JSON_TYPE).send(snapshot.body);
  }

  // Synchronous whenever the snapshot and the environment's count are in memory (nearly always):
  // no promise per request. The first sync of an environment waits for its reads.
  const handler = (audience: Audience) =>
    function deliver(request: FastifyRequest, reply: FastifyReply): Promise<void> | void {
      // The route's auth config admits only this audience's environment key.
      const principal = request.principal as EnvironmentPrincipal;
      const found = delivery.snapshot(principal, audience);
      if (found instanceof Promise) return found.then((snapshot) => admitThenRespond(request, reply, principal, snapshot));
      return admitThenRespond(request, reply, principal, found);
    };

  function admitThenRespond(request: FastifyRequest, reply: FastifyReply, principal: EnvironmentPrincipal, snapshot: Snapshot): Promise<void> | void {
    const counted = delivery.admit(principal);
    if (counted instanceof Promise) return counted.then((quota) => respond(request, reply, principal, snapshot, quota));
    respond(request, reply, principal, snapshot, counted);
  }

  app.get('/api/v1/config', routeOptions('server'), handler('server'));

  // Browsers call the public route with pub_ keys: it lives in a scope of its own with CORS.
  await app.register(
    async (scope: FastifyInstance) => {
      await registerPublicCors(scope);
      scope.get('', routeOptions('client'), handler('client'));
    },
    { prefix: '/api/v1/public-config' },
  );
};

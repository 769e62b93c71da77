// Every response carries X-Request-Id: a well-formed incoming one is echoed, otherwise one is made.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { newId } from './ids.js';
import { implementedByLane } from './lane-hooks.js';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && VALID.test(incoming) ? incoming : newId('req');
}

export function registerRequestIds(app: FastifyInstance) {
  // A callback hook rather than an async one: it runs on every request, and a promise each time
  // is measurable on the delivery routes.
  // The fast lane (fast-lane.ts) sets the same header on its answers.
  app.addHook(
    'onRequest',
    implementedByLane(
      function requestIdHeader(request: FastifyRequest, reply: FastifyReply, done: () => void) {
        reply.header('x-request-id', request.id);
        done();
      },
      { name: 'request id' },
    ),
  );
}

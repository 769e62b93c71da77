// How a route joins the fast lane (fast-lane.ts): `fastLaneRoute(auth)(handler)` gives the options of
// a Fastify route whose handler the lane also calls, so both ways run one piece of route code; the
// handler's input and answer are the types below, the same in the lane and in Fastify.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteAuth } from './authenticate.js';
import type { Principal, PrincipalOf } from './principal.js';
import type { TokenType } from './tokens.js';

export interface FastLaneInput<Body = unknown, Params = Record<string, string>, P extends Principal = Principal> {
  /** Of a type the route's auth rule allows. */
  principal: P;
  body: Body;
  params: Params;
  /** Always empty in the lane (it leaves requests with a query string to Fastify). */
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/** A JSON answer (or none, for 304). */
export interface FastLaneAnswer {
  status: number;
  /** Headers computed once and shared by many answers (a document's tag and caching headers): names
   * and values in turn, written before `headers`. */
  headerList?: readonly (string | number)[];
  headers?: Record<string, string | number>;
  /** JSON text. A string goes out in the same write as the headers; large cached answers are Buffers. */
  body?: string | Buffer;
}

export type FastLaneHandler<Body = unknown, Params = Record<string, string>, P extends Principal = Principal> = (
  input: FastLaneInput<Body, Params, P>,
) => FastLaneAnswer | Promise<FastLaneAnswer>;

/** What a lane route's config carries: the handler the lane calls. */
export interface FastLaneRoute {
  handler: FastLaneHandler<never, never, never>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    fastLane?: FastLaneRoute;
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a handler's answer through Fastify. */
export function sendAnswer(reply: FastifyReply, answer: FastLaneAnswer): void {
  reply.code(answer.status);
  const list = answer.headerList;
  if (list !== undefined) for (let i = 0; i < list.length; i += 2) reply.header(list[i] as string, list[i + 1]);
  if (answer.headers) reply.headers(answer.headers);
  if (answer.body === undefined) reply.send();
  else reply.type(JSON_TYPE).send(answer.body);
}

/** The parts of a lane route's options: spread `config` into the route's config, pass `handler`. */
export interface FastLaneRouteOptions {
  config: { auth: RouteAuth; fastLane: FastLaneRoute };
  handler: (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;
}

/**
 * A lane route with its auth rule: `fastLaneRoute({ allow: ['sdk'] })<Body, Params>(handler)`. The
 * handler's principal is typed by the rule (an sdk_ route gets an environment principal of type
 * 'sdk'): authentication admits only credentials of the allowed types, which resolve to principals of
 * those types, in the lane and in Fastify alike.
 */
export function fastLaneRoute<const T extends TokenType>(auth: RouteAuth<T>) {
  return <Body = unknown, Params = Record<string, string>>(
    handler: FastLaneHandler<Body, Params, PrincipalOf<T>>,
  ): FastLaneRouteOptions => ({
    config: { auth, fastLane: { handler } },
    handler(request, reply) {
      const answer = handler({
        // Set by the authentication hook (preValidation) from a credential of a type in `auth.allow`.
        principal: request.principal as PrincipalOf<T>,
        body: request.body as Body,
        params: request.params as Params,
        query: request.query as Record<string, unknown>,
        headers: request.headers,
      });
      if (answer instanceof Promise) return answer.then((settled) => sendAnswer(reply, settled));
      sendAnswer(reply, answer);
    },
  });
}

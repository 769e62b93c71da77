// What the fast lane's parts share: a route's entry as the lane serves it, the one state object of a
// lane (made once by createFastLane, in fast-lane.ts) and one request the lane has taken. The parts are
// plain functions over these (matching, the exchange, the response), so a request costs no closure.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HTTPVersion, Instance as Router } from 'find-my-way';
import type { FastifyBaseLogger, FastifyContextConfig } from 'fastify';
import type { RouteAuth } from './authenticate.js';
import type { ErrorRenderer } from './error-handler.js';
import type { FastLaneHandler, FastLaneInput } from './fast-lane-route.js';
import type { LaneObserver } from './lane-hooks.js';
import type { CredentialResolver, Principal } from './principal.js';
import type { CompiledValidator } from './validation.js';

/** A lane route as the lane serves it: what the equivalence test generates its cases from. */
export interface FastLaneRouteInfo {
  method: 'GET' | 'POST';
  url: string;
  auth: RouteAuth;
  bodyLimit: number;
  schema: { body?: object; params?: object; headers?: object };
  /** The names of the hooks the lane does in Fastify's place. */
  hooks: string[];
}

export interface LaneEntry extends FastLaneRouteInfo {
  handler: FastLaneHandler<unknown, unknown, Principal>;
  config: FastifyContextConfig;
  render: ErrorRenderer;
  /** The hooks' headers as a flat list of names and values. */
  headers: string[];
  validateBody: CompiledValidator | null;
  validateParams: CompiledValidator | null;
  validateHeaders: CompiledValidator | null;
  observers: LaneObserver[];
}

export interface FastLaneStats {
  /** Requests the lane answered (errors included). */
  served: number;
  /** Of those, answered with an error. */
  errors: number;
}

/** Fastify's loggers are pino loggers, which can say whether a level is on. */
export type Logger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/** One lane's routes and settings; `attach` fills what the app knows only once it is built. */
export interface LaneState {
  router: Router<HTTPVersion.V1>;
  /** Routes without parameters by method and exact path: a request for exactly that path is found
   * with one Map lookup, which is what the router would find too (it falls back to it otherwise). */
  exact: { GET: Map<string, LaneEntry>; POST: Map<string, LaneEntry> };
  stats: FastLaneStats;
  log: Logger | undefined;
  requestIdLabel: string;
  resolver: CredentialResolver | undefined;
  closing: boolean;
  /** Fastify's request handler, which declined requests go to. */
  framework: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
}

/** One request the lane has taken. */
export interface Exchange {
  lane: LaneState;
  req: IncomingMessage;
  res: ServerResponse;
  entry: LaneEntry;
  input: FastLaneInput<unknown, unknown, Principal>;
  requestId: string;
  startedAt: number;
  /** The request's logger, made only when something is logged. */
  log: FastifyBaseLogger | undefined;
  /** A POST's body as it arrives: bodies are small and nearly always come in one chunk, kept as it
   * is; a list only when more come. Decoded once at the end. */
  chunks: Buffer | Buffer[] | null;
}

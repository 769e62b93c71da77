// The fast lane: the routes that carry most of the traffic (remote evaluation, OFREP and legacy
// delivery) answer an ordinary request straight from node:http, without Fastify's per-request
// objects, hooks and reply pipeline, which cost more than evaluating (docs/decisions/0002-fast-lane.md
// has the measurements, docs/decisions/0005-one-pipeline-for-the-fast-lane.md the present shape).
//
// A route joins through `fastLaneRoute(auth)(handler)` (fast-lane-route.ts): the same handler answers
// through Fastify, so both ways run one piece of route code. A request is either declined before
// anything of it is read (it then goes to Fastify untouched: fast-lane-matching.ts) or answered by the
// lane to the end, errors included (fast-lane-exchange.ts, fast-lane-response.ts). This file installs
// the lane: the HTTP server in front of Fastify, and the route table built once the app is ready.
// Every hook Fastify would run on a lane route must be one the lane implements (lane-hooks.ts): the
// app refuses to start otherwise.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import FindMyWay from 'find-my-way';
import type { FastifyInstance, FastifyServerOptions, RouteOptions } from 'fastify';
import { errorRendererOf } from './error-handler.js';
import { LaneRequest } from './fast-lane-exchange.js';
import { take } from './fast-lane-matching.js';
import type { FastLaneHandler } from './fast-lane-route.js';
import type { FastLaneRouteInfo, LaneEntry, LaneState, Logger } from './fast-lane-state.js';
import {
  LIFECYCLE_HOOKS,
  laneHookPartOf,
  scopeHooksOf,
  watchesHooks,
  watchHooks,
  type LaneObserver,
} from './lane-hooks.js';
import type { CredentialResolver, Principal } from './principal.js';
import { quietRequestLogging } from './quiet-request-logger.js';
import type { ValidatorCompiler } from './validation.js';

export interface FastLaneOptions {
  /** As the app's router: a path parameter longer than this is Fastify's 414. */
  maxParamLength: number;
  /** false: every request goes to Fastify (the lane's routes answer there, as they do through inject). */
  enabled: boolean;
}

/** Fastify server options the lane's HTTP/1 server cannot honour: refused at start, never ignored. */
const UNSUPPORTED_SERVER_OPTIONS = ['https', 'http2'] as const;

export interface FastLaneAttachment {
  resolver: CredentialResolver;
  compile: ValidatorCompiler;
}

/** Builds a route's entry once every hook is known, refusing hooks and error handlers it cannot honour. */
function entryOf(
  root: FastifyInstance,
  scope: FastifyInstance,
  route: RouteOptions,
  compile: ValidatorCompiler,
): LaneEntry {
  const method = route.method === 'GET' ? 'GET' : route.method === 'POST' ? 'POST' : null;
  const name = `fast lane route ${String(route.method)} ${route.url}`;
  const config = route.config ?? {};
  const lane = config.fastLane!;
  const auth = config.auth;
  if (auth === undefined || method === null) throw new Error(`${name} must be an authenticated GET or POST`);
  if (route.errorHandler !== undefined || scope.errorHandler !== root.errorHandler) {
    throw new Error(
      `${name} has an error handler of its own, which the lane cannot call: render its errors through config.errorRenderer`,
    );
  }
  const scopeHooks = scopeHooksOf(scope);
  const headers: Record<string, string> = {};
  const observers: LaneObserver[] = [];
  const names: string[] = [];
  for (const hook of LIFECYCLE_HOOKS) {
    const own = route[hook] as unknown;
    for (const fn of [...scopeHooks[hook], ...(Array.isArray(own) ? own : own === undefined ? [] : [own])] as ((
      ...args: never[]
    ) => unknown)[]) {
      const part = laneHookPartOf(fn);
      if (part === undefined) {
        throw new Error(
          `${name}: its ${hook} hook ${fn.name || '(anonymous)'} is not one the lane implements. Declare what it does with implementedByLane (platform/lane-hooks.ts) and do it in the lane, or take the route out of the lane.`,
        );
      }
      names.push(part.name);
      Object.assign(headers, part.headers);
      if (part.observer) observers.push(part.observer(route.url));
    }
  }
  const schema = (route.schema ?? {}) as FastLaneRouteInfo['schema'];
  return {
    method,
    url: route.url,
    auth,
    bodyLimit: route.bodyLimit ?? root.initialConfig.bodyLimit!,
    schema: { body: schema.body, params: schema.params, headers: schema.headers },
    hooks: names,
    handler: lane.handler as FastLaneHandler<unknown, unknown, Principal>,
    config,
    render: errorRendererOf(config),
    headers: Object.entries(headers).flat(),
    validateBody: schema.body ? compile(schema.body, 'body') : null,
    validateParams: schema.params ? compile(schema.params, 'params') : null,
    validateHeaders: schema.headers ? compile(schema.headers, 'headers') : null,
    observers,
  };
}

export function createFastLane(options: FastLaneOptions) {
  const lane: LaneState = {
    router: FindMyWay({ maxParamLength: options.maxParamLength }),
    exact: { GET: new Map<string, LaneEntry>(), POST: new Map<string, LaneEntry>() },
    stats: { served: 0, errors: 0 },
    log: undefined,
    requestIdLabel: 'reqId',
    resolver: undefined,
    closing: false,
    framework: undefined,
  };
  const table: FastLaneRouteInfo[] = [];

  return {
    stats: lane.stats,
    /** The routes the lane serves (filled when the app is ready). */
    routes: (): readonly FastLaneRouteInfo[] => table,

    /** Fastify's `serverFactory`: the HTTP/1 server Fastify would make, with the lane in front. */
    serverFactory(handler: (req: IncomingMessage, res: ServerResponse) => void, opts: Record<string, unknown>) {
      const settings = opts as FastifyServerOptions & { http?: object };
      const unsupported = UNSUPPORTED_SERVER_OPTIONS.filter((name) => opts[name] !== undefined && opts[name] !== false);
      if (unsupported.length > 0) {
        throw new Error(
          `The server is HTTP/1.1 only: the Fastify option${unsupported.length > 1 ? 's' : ''} ${unsupported.join(' and ')} ${unsupported.length > 1 ? 'are' : 'is'} not supported. Terminate TLS (and HTTP/2) in a proxy in front of Ensign.`,
        );
      }
      lane.framework = handler;
      const server = createServer(
        // Lane POSTs take their bodies as they are parsed (fast-lane-exchange.ts).
        { ...settings.http, IncomingMessage: LaneRequest },
        options.enabled
          ? (req, res) => {
              if (!take(lane, req, res)) handler(req, res);
            }
          : handler,
      );
      if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout;
      if (settings.requestTimeout !== undefined) server.requestTimeout = settings.requestTimeout;
      if (settings.connectionTimeout !== undefined) server.setTimeout(settings.connectionTimeout);
      if (settings.maxRequestsPerSocket) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
      return server;
    },

    /**
     * Records the hooks of the app and its scopes (lane-hooks.ts); call right after Fastify() returns,
     * before any hook is added, so none can run on a lane route unseen.
     */
    watch(app: FastifyInstance) {
      watchHooks(app);
    },

    /** Collects the routes that name a fast-lane handler; call before any route is registered. */
    attach(app: FastifyInstance, deps: FastLaneAttachment) {
      if (!watchesHooks(app))
        throw new Error(
          "the fast lane must watch the app's hooks from its creation: call lane.watch(app) right after Fastify()",
        );
      lane.log = app.log as Logger;
      lane.requestIdLabel = app.initialConfig.requestIdLogLabel ?? 'reqId';
      lane.resolver = deps.resolver;
      const pending: { scope: FastifyInstance; route: RouteOptions }[] = [];
      app.addHook('onRoute', function collect(this: FastifyInstance, route) {
        if (route.config?.fastLane === undefined) return;
        // Lane routes log their request lines at debug, both ways (quiet-request-logger.ts).
        if (route.childLoggerFactory !== undefined && route.childLoggerFactory !== quietRequestLogging) {
          throw new Error(
            `fast lane route ${String(route.method)} ${route.url} has a logger factory the lane does not follow`,
          );
        }
        route.childLoggerFactory = quietRequestLogging;
        // Fastify adds a HEAD route beside each GET route, with its config: HEAD stays with Fastify.
        if (route.method !== 'HEAD') pending.push({ scope: this, route });
      });
      // Hooks and route configs are complete once every plugin has loaded: checked then, and the app
      // does not start if a lane route has a hook the lane does not implement.
      app.addHook('onReady', function check(done) {
        try {
          for (const { scope, route } of pending) {
            const entry = entryOf(app, scope, route, deps.compile);
            lane.router.on(entry.method, entry.url, () => undefined, entry);
            if (!entry.url.includes(':') && !entry.url.includes('*')) lane.exact[entry.method].set(entry.url, entry);
            table.push(entry);
          }
          pending.length = 0;
          done();
        } catch (err) {
          done(err as Error);
        }
      });
      // From here on Fastify answers new requests 503 while it finishes the others.
      app.addHook('preClose', (done) => {
        lane.closing = true;
        done();
      });
    },
  };
}

// The fast lane: the routes that carry most of the traffic (remote evaluation, OFREP and legacy
// delivery) answer an ordinary request straight from node:http, without Fastify's per-request
// objects, hooks and reply pipeline, which cost more than evaluating (docs/decisions/0002-fast-lane.md
// has the measurements, docs/decisions/0005-one-pipeline-for-the-fast-lane.md the present shape).
//
// A route joins through `fastLaneRoute(auth)(handler)`: the same handler answers through Fastify, so
// both ways run one piece of route code. A request is either declined before anything of it is read
// (it then goes to Fastify untouched) or answered by the lane to the end, errors included:
// - declined: another method or path, a query string, a body of another type or of no declared
//   length or past the route's limit, params or headers its schemas refuse, a credential the route
//   does not accept (no read is made twice: the key cache remembers unknown keys too), a closing server;
// - answered: the body is parsed and validated with the route's compiled schema, the handler runs
//   once, and whatever it answers or throws is written here, errors rendered by the route's error
//   renderer (error-handler.ts), the very function Fastify's error handler calls.
// Every hook Fastify would run on a lane route must be one the lane implements (lane-hooks.ts): the
// app refuses to start otherwise. Request lines are logged here as Fastify logs them (at debug, as
// on every lane route through the quiet request logger), so the log level never changes the way.
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { performance } from 'node:perf_hooks';
import FindMyWay from 'find-my-way';
import type {
  FastifyBaseLogger,
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
  RouteOptions,
} from 'fastify';
import { acceptedPrincipal, type RouteAuth } from './authenticate.js';
import { errorRendererOf, writableHeaders, type ErrorRenderer } from './error-handler.js';
import { parseJsonBody } from './json-depth.js';
import {
  LIFECYCLE_HOOKS,
  laneHookPartOf,
  scopeHooksOf,
  watchesHooks,
  watchHooks,
  type LaneObserver,
} from './lane-hooks.js';
import type { CredentialResolver, Principal, PrincipalOf } from './principal.js';
import { quietRequestLogging } from './quiet-request-logger.js';
import { requestIdOf } from './request-id.js';
import type { TokenType } from './tokens.js';
import { validationFailure, type CompiledValidator, type ValidatorCompiler } from './validation.js';

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

const JSON_TYPE = 'application/json; charset=utf-8';

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

interface LaneEntry extends FastLaneRouteInfo {
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

/** One request the lane has taken. */
interface Exchange {
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

/** Where the body listeners find a request's exchange. */
const READING = Symbol('fast lane exchange');
type ReadingRequest = IncomingMessage & { [READING]?: Exchange };

function onBodyChunk(this: IncomingMessage, chunk: Buffer) {
  const exchange = (this as ReadingRequest)[READING]!;
  const chunks = exchange.chunks;
  if (chunks === null) exchange.chunks = chunk;
  else if (Array.isArray(chunks)) chunks.push(chunk);
  else exchange.chunks = [chunks, chunk];
}

/** A client gone before its body arrived has nothing to be answered (and no 'end' comes). */
function onBodyError(this: IncomingMessage) {
  (this as ReadingRequest)[READING]!.res.destroy();
}

export interface FastLaneStats {
  /** Requests the lane answered (errors included). */
  served: number;
  /** Of those, answered with an error. */
  errors: number;
}

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

/** Fastify's loggers are pino loggers, which can say whether a level is on. */
type Logger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

export function createFastLane(options: FastLaneOptions) {
  const router = FindMyWay({ maxParamLength: options.maxParamLength });
  /** Routes without parameters by method and exact path: a request for exactly that path is found
   * with one Map lookup, which is what the router would find too (it falls back to it otherwise). */
  const exact = { GET: new Map<string, LaneEntry>(), POST: new Map<string, LaneEntry>() };
  const stats: FastLaneStats = { served: 0, errors: 0 };
  const table: FastLaneRouteInfo[] = [];
  let log: Logger | undefined;
  let requestIdLabel = 'reqId';
  let resolver: CredentialResolver | undefined;
  let closing = false;
  /** Fastify's request handler, which declined requests go to. */
  let framework: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;

  function take(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if ((method !== 'POST' && method !== 'GET') || closing) return false;
    const url = req.url!;
    if (url.includes('?')) return false;
    let entry = exact[method].get(url);
    let params: Record<string, string | undefined>;
    if (entry !== undefined) params = {};
    else {
      const found = router.find(method, url);
      if (found === null) return false;
      entry = found.store as LaneEntry;
      params = found.params;
    }
    const headers = req.headers;
    const length = headers['content-length'];
    if (headers['transfer-encoding'] !== undefined) return false;
    if (method === 'POST') {
      const type = headers['content-type'];
      if (type !== 'application/json' && type !== JSON_TYPE) return false;
      // A missing or malformed length is NaN: not taken. Fastify answers 413 past the limit.
      if (!(Number(length) <= entry.bodyLimit)) return false;
    } else if (length !== undefined && length !== '0') {
      return false; // a GET with a body: unusual enough to leave to Fastify
    }
    if (entry.validateParams !== null && !entry.validateParams(params)) return false;
    if (entry.validateHeaders !== null && !entry.validateHeaders(headers)) return false;
    const principal = acceptedPrincipal(headers, entry.auth, resolver!);
    if (principal === null) return false;
    const startedAt = performance.now();
    if (principal instanceof Promise) {
      // The key is read (once: the cache then holds it, for Fastify too if declined). Nothing of the
      // request has been read meanwhile, so it can still go to Fastify untouched.
      void principal.then((accepted) => {
        if (req.destroyed) return; // the client left while its key was read
        if (accepted === null || closing) framework!(req, res);
        else answer(req, res, entry!, params, accepted, startedAt);
      });
      return true;
    }
    answer(req, res, entry, params, principal, startedAt);
    return true;
  }

  /** Taken: from here on every outcome is answered here. */
  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    entry: LaneEntry,
    params: unknown,
    principal: Principal,
    startedAt: number,
  ) {
    const method = entry.method;
    const { headers, url } = req;
    const exchange: Exchange = {
      req,
      res,
      entry,
      input: { principal, body: undefined, params, query: {}, headers },
      requestId: requestIdOf(req),
      startedAt,
      log: undefined,
      chunks: null,
    };
    if (log!.isLevelEnabled('debug')) {
      // What Fastify's serializer reads of a request (method, url, host, ip, socket, headers).
      const view = { method, url, headers, host: headers.host ?? '', ip: req.socket.remoteAddress, socket: req.socket };
      logOf(exchange).debug({ req: view }, 'incoming request');
    }
    if (method === 'GET') return finish(exchange, null);
    // The body is collected by listeners shared by every request (no closures per request), which
    // find the exchange on the request.
    (req as ReadingRequest)[READING] = exchange;
    req.on('data', onBodyChunk);
    req.on('error', onBodyError);
    req.on('end', onBodyEnd);
  }

  function onBodyEnd(this: IncomingMessage) {
    const exchange = (this as ReadingRequest)[READING]!;
    const first = exchange.chunks;
    const text =
      first === null ? '' : Array.isArray(first) ? Buffer.concat(first).toString('utf8') : first.toString('utf8');
    exchange.chunks = null;
    finish(exchange, text);
  }

  function logOf(exchange: Exchange): FastifyBaseLogger {
    return (exchange.log ??= log!.child({ [requestIdLabel]: exchange.requestId }));
  }

  /** Parses, validates and runs the handler once; `text` is the body of a POST, null for a GET. */
  function finish(exchange: Exchange, text: string | null) {
    const { entry } = exchange;
    let result: FastLaneAnswer | Promise<FastLaneAnswer>;
    try {
      if (text !== null) {
        const body: unknown = parseJsonBody(text, entry.config.jsonValues);
        if (entry.validateBody !== null && !entry.validateBody(body))
          throw validationFailure(entry.validateBody, 'body');
        exchange.input.body = body;
      }
      result = entry.handler(exchange.input);
    } catch (err) {
      return fail(exchange, err);
    }
    if (result instanceof Promise)
      result.then(
        (settled) => respond(exchange, settled),
        (err: unknown) => fail(exchange, err),
      );
    else respond(exchange, result);
  }

  function respond(exchange: Exchange, answer: FastLaneAnswer) {
    try {
      write(exchange, answer);
    } catch (err) {
      // Node refused what was to be written (a header value, say): answered as Fastify would, 500.
      if (exchange.res.headersSent) return lost(exchange, err);
      fail(exchange, err);
    }
  }

  /** Answers an error with the route's renderer, the function Fastify's error handler uses. */
  function fail(exchange: Exchange, thrown: unknown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    try {
      const { entry } = exchange;
      const answer = entry.render(error, {
        requestId: exchange.requestId,
        config: entry.config,
        params: exchange.input.params,
      });
      if (answer.status >= 500) logOf(exchange).error({ err: error }, 'request failed');
      stats.errors++;
      write(exchange, { ...answer, headers: writableHeaders(answer.headers) });
    } catch (err) {
      lost(exchange, err);
    }
  }

  function write(exchange: Exchange, answer: FastLaneAnswer) {
    const { entry, res } = exchange;
    // A flat list of names and values: Node takes it as it is, where an object built up here would
    // be reshaped on every request.
    const list = answer.headerList;
    const headers: (string | number)[] =
      list === undefined ? entry.headers.slice() : (entry.headers as (string | number)[]).concat(list);
    headers.push('x-request-id', exchange.requestId);
    if (answer.headers !== undefined) for (const name in answer.headers) headers.push(name, answer.headers[name]!);
    const body = answer.body;
    if (body !== undefined)
      headers.push(
        'content-type',
        JSON_TYPE,
        'content-length',
        typeof body === 'string' ? Buffer.byteLength(body) : body.length,
      );
    else if (answer.status !== 304 && answer.status !== 204) headers.push('content-length', 0);
    res.writeHead(answer.status, headers as unknown as OutgoingHttpHeaders);
    res.end(body);
    stats.served++;
    for (const observe of entry.observers) observe(entry.method, answer.status, exchange.startedAt);
    if (exchange.log !== undefined)
      logOf(exchange).debug(
        { res: { statusCode: answer.status }, responseTime: performance.now() - exchange.startedAt },
        'request completed',
      );
  }

  /** Nothing can be answered any more: the error is logged and the connection closed. */
  function lost(exchange: Exchange, err: unknown) {
    logOf(exchange).error({ err }, 'could not answer a request of the fast lane');
    exchange.res.destroy();
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

  return {
    stats,
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
      framework = handler;
      const server = createServer(
        settings.http ?? {},
        options.enabled
          ? (req, res) => {
              if (!take(req, res)) handler(req, res);
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
      log = app.log as Logger;
      requestIdLabel = app.initialConfig.requestIdLogLabel ?? 'reqId';
      resolver = deps.resolver;
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
            router.on(entry.method, entry.url, () => undefined, entry);
            if (!entry.url.includes(':') && !entry.url.includes('*')) exact[entry.method].set(entry.url, entry);
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
        closing = true;
        done();
      });
    },
  };
}

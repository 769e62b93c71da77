// The fast lane: the routes that carry most of the traffic (remote evaluation, OFREP and legacy
// delivery) answer an ordinary request straight from node:http, without Fastify's per-request
// objects, hooks and reply pipeline, which cost more than evaluating (docs/decisions/0002-fast-lane.md
// has the measurements).
//
// A route joins by naming a handler in its `config.fastLane`; the same handler answers through
// Fastify (`answerWith`), so both ways run one piece of route code. The lane takes a request only
// when it can answer it exactly as Fastify would: the route's method and path, no query string, for
// a POST a JSON body of a declared length within the route's limit (for a GET no body), the route's
// params and headers schemas satisfied, and a credential the route accepts that is known from
// memory. Everything else goes to Fastify untouched. A request the lane has taken but cannot answer
// (invalid JSON, a body its schema refuses, an error thrown by the handler) is replayed through
// Fastify (`app.inject`) with the same body, so every error is rendered by the one error pipeline.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import FindMyWay from 'find-my-way';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { principalInMemory, type RouteAuth } from './authenticate.js';
import { parseJsonBody } from './json-depth.js';
import type { CredentialResolver, Principal } from './principal.js';
import { requestIdOf } from './request-id.js';
import type { ValidatorCompiler } from './validation.js';

export interface FastLaneInput<Body = unknown, Params = Record<string, string>> {
  principal: Principal;
  body: Body;
  params: Params;
  /** Always empty in the lane (it leaves requests with a query string to Fastify). */
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/** A JSON answer (or none, for 304). */
export interface FastLaneAnswer {
  status: number;
  headers?: Record<string, string | number>;
  /** JSON text. A string goes out in the same write as the headers; large cached answers are Buffers. */
  body?: string | Buffer;
}

export type FastLaneHandler<Body = unknown, Params = Record<string, string>> =
  (input: FastLaneInput<Body, Params>) => FastLaneAnswer | Promise<FastLaneAnswer>;

export interface FastLaneRoute {
  /** Must parse its body with JSON.parse (as the evaluation routes' parser does): the lane does. */
  handler: FastLaneHandler<never, never>;
  /** Headers the route's scope adds to every answer through hooks (its CORS policy). */
  headers?: Record<string, string>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    fastLane?: FastLaneRoute;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** Answers replayed through Fastify keep their headers, except those of the replay's connection. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

/** Sends a handler's answer through Fastify. */
export function sendAnswer(reply: FastifyReply, answer: FastLaneAnswer): void {
  reply.code(answer.status);
  if (answer.headers) reply.headers(answer.headers);
  if (answer.body === undefined) reply.send();
  else reply.type(JSON_TYPE).send(answer.body);
}

/** The Fastify handler of a route whose `config.fastLane` names `handler`. */
export function answerWith<Body, Params>(handler: FastLaneHandler<Body, Params>) {
  return (request: FastifyRequest, reply: FastifyReply): void | Promise<void> => {
    const answer = handler({
      principal: request.principal!,
      body: request.body as Body,
      params: request.params as Params,
      query: request.query as Record<string, unknown>,
      headers: request.headers,
    });
    if (answer instanceof Promise) return answer.then((settled) => sendAnswer(reply, settled));
    sendAnswer(reply, answer);
  };
}

interface LaneEntry {
  route: FastLaneRoute;
  /** The route's own headers as a flat list of names and values. */
  headers: string[];
  auth: RouteAuth;
  bodyLimit: number;
  validateBody: ((value: unknown) => boolean) | null;
  validateParams: ((value: unknown) => boolean) | null;
  validateHeaders: ((value: unknown) => boolean) | null;
}

export interface FastLaneStats {
  /** Requests the lane answered. */
  served: number;
  /** Requests the lane took and handed to Fastify (with their body) to answer. */
  replayed: number;
}

export interface FastLaneOptions {
  /** As the app's router: a path parameter longer than this is Fastify's 414. */
  maxParamLength: number;
}

export interface FastLaneAttachment {
  resolver: CredentialResolver;
  compile: ValidatorCompiler;
}

export function createFastLane(options: FastLaneOptions) {
  const router = FindMyWay({ maxParamLength: options.maxParamLength });
  const stats: FastLaneStats = { served: 0, replayed: 0 };
  let app: FastifyInstance | undefined;
  /** Fastify's loggers are pino loggers, which can say whether a level is on. */
  let log: (FastifyBaseLogger & { isLevelEnabled(level: string): boolean }) | undefined;
  let resolver: CredentialResolver | undefined;
  let closing = false;

  function take(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if ((method !== 'POST' && method !== 'GET') || app === undefined || closing) return false;
    const url = req.url!;
    if (url.includes('?')) return false;
    const found = router.find(method, url);
    if (found === null) return false;
    const entry = found.store as LaneEntry;
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
    // Fastify writes the request lines at debug level: requests then go its way.
    if (log!.isLevelEnabled('debug')) return false;
    if (entry.validateParams !== null && !entry.validateParams(found.params)) return false;
    if (entry.validateHeaders !== null && !entry.validateHeaders(headers)) return false;
    const principal = principalInMemory(headers, entry.auth, resolver!);
    if (principal === null) return false;
    const input: FastLaneInput = { principal, body: undefined, params: found.params as Record<string, string>, query: {}, headers };
    if (method === 'GET') {
      answer(req, res, entry, input, null);
      return true;
    }

    // Buffers, decoded once at the end: bodies are small and nearly always arrive in one chunk.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A client gone before its body arrived has nothing to be answered (and no 'end' comes).
    req.on('error', () => res.destroy());
    req.on('end', () => answer(req, res, entry, input, (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
    return true;
  }

  /** `text` is the body of a POST, null for a GET. */
  function answer(req: IncomingMessage, res: ServerResponse, entry: LaneEntry, input: FastLaneInput, text: string | null) {
    let result: FastLaneAnswer | Promise<FastLaneAnswer>;
    try {
      if (text !== null) {
        input.body = parseJsonBody(text);
        if (entry.validateBody !== null && !entry.validateBody(input.body)) return replay(req, res, text);
      }
      result = (entry.route.handler as FastLaneHandler)(input);
    } catch {
      return replay(req, res, text);
    }
    if (result instanceof Promise) result.then((settled) => respond(req, res, entry, settled, text), () => replay(req, res, text));
    else respond(req, res, entry, result, text);
  }

  function respond(req: IncomingMessage, res: ServerResponse, entry: LaneEntry, answer: FastLaneAnswer, text: string | null) {
    try {
      write(req, res, entry, answer);
    } catch (err) {
      // Node refused what was to be written (a header value, say): Fastify answers, or reports it.
      if (!res.headersSent) return replay(req, res, text);
      failed(res, err);
    }
  }

  function write(req: IncomingMessage, res: ServerResponse, entry: LaneEntry, answer: FastLaneAnswer) {
    // A flat list of names and values: Node takes it as it is, where an object built up here would
    // be reshaped on every request.
    const headers: (string | number)[] = [...entry.headers, 'x-request-id', requestIdOf(req)];
    if (answer.headers !== undefined) for (const name in answer.headers) headers.push(name, answer.headers[name]!);
    const body = answer.body;
    if (body !== undefined) headers.push('content-type', JSON_TYPE, 'content-length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
    else if (answer.status !== 304 && answer.status !== 204) headers.push('content-length', 0);
    res.writeHead(answer.status, headers as unknown as OutgoingHttpHeaders);
    res.end(body);
    stats.served++;
  }

  /** Fastify answers a request the lane has taken: same method, URL, headers and body. */
  function replay(req: IncomingMessage, res: ServerResponse, text: string | null) {
    stats.replayed++;
    const request = { method: req.method as 'GET' | 'POST', url: req.url!, headers: req.headers, remoteAddress: req.socket.remoteAddress };
    app!.inject(text === null ? request : { ...request, payload: text }).then(
      (replayed) => {
        try {
          const headers: OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(replayed.headers)) if (!CONNECTION_HEADERS.has(name)) headers[name] = value;
          res.writeHead(replayed.statusCode, headers);
          res.end(replayed.rawPayload);
        } catch (err) {
          failed(res, err);
        }
      },
      (err: unknown) => failed(res, err),
    );
  }

  /** Nothing can be answered any more: the error is logged and the connection closed. */
  function failed(res: ServerResponse, err: unknown) {
    log!.error({ err }, 'could not answer a request of the fast lane');
    res.destroy();
  }

  return {
    stats,

    /** Fastify's `serverFactory`: the HTTP/1 server Fastify would make, with the lane in front. */
    serverFactory(handler: (req: IncomingMessage, res: ServerResponse) => void, opts: Record<string, unknown>) {
      const settings = opts as FastifyServerOptions & { http?: object };
      const server = createServer(settings.http ?? {}, (req, res) => {
        if (!take(req, res)) handler(req, res);
      });
      if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout;
      if (settings.requestTimeout !== undefined) server.requestTimeout = settings.requestTimeout;
      if (settings.connectionTimeout !== undefined) server.setTimeout(settings.connectionTimeout);
      if (settings.maxRequestsPerSocket) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
      return server;
    },

    /** Collects the routes that name a fast-lane handler; call before any route is registered. */
    attach(instance: FastifyInstance, deps: FastLaneAttachment) {
      app = instance;
      log = instance.log as typeof log;
      resolver = deps.resolver;
      instance.addHook('onRoute', (route) => {
        const lane = route.config?.fastLane;
        // Fastify adds a HEAD route beside each GET route, with its config: HEAD stays with Fastify.
        if (lane === undefined || route.method === 'HEAD') return;
        const auth = route.config?.auth;
        const method = route.method === 'GET' ? 'GET' : route.method === 'POST' ? 'POST' : null;
        if (auth === undefined || method === null) throw new Error(`fast lane route ${route.url} must be an authenticated GET or POST`);
        const schema = (route.schema ?? {}) as { body?: object; params?: object; headers?: object };
        router.on(method, route.url, () => undefined, {
          route: lane,
          headers: Object.entries(lane.headers ?? {}).flat(),
          auth,
          bodyLimit: route.bodyLimit ?? instance.initialConfig.bodyLimit!,
          validateBody: schema.body ? deps.compile(schema.body, 'body') : null,
          validateParams: schema.params ? deps.compile(schema.params, 'params') : null,
          validateHeaders: schema.headers ? deps.compile(schema.headers, 'headers') : null,
        } satisfies LaneEntry);
      });
      // From here on Fastify answers new requests 503 while it finishes the others.
      instance.addHook('preClose', (done) => {
        closing = true;
        done();
      });
    },
  };
}

export type FastLane = ReturnType<typeof createFastLane>;

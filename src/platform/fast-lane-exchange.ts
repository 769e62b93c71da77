// A request the fast lane has taken (fast-lane-matching.ts), from its request line to its handler's
// answer: logged as Fastify logs it (at debug, as on every lane route through the quiet request
// logger, so the log level never changes the way), its body read, parsed and validated with the
// route's compiled schema, and the handler run once; what it answers or throws is written by
// fast-lane-response.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJsonBody } from './json-depth.js';
import type { FastLaneAnswer } from './fast-lane-route.js';
import { fail, logOf, respond } from './fast-lane-response.js';
import type { Exchange, LaneEntry, LaneState } from './fast-lane-state.js';
import type { Principal } from './principal.js';
import { requestIdOf } from './request-id.js';
import { validationFailure } from './validation.js';

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

function onBodyEnd(this: IncomingMessage) {
  const exchange = (this as ReadingRequest)[READING]!;
  const first = exchange.chunks;
  const text =
    first === null ? '' : Array.isArray(first) ? Buffer.concat(first).toString('utf8') : first.toString('utf8');
  exchange.chunks = null;
  finish(exchange, text);
}

/** Taken: from here on every outcome is answered here. */
export function answer(
  lane: LaneState,
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
    lane,
    req,
    res,
    entry,
    input: { principal, body: undefined, params, query: {}, headers },
    requestId: requestIdOf(req),
    startedAt,
    log: undefined,
    chunks: null,
  };
  if (lane.log!.isLevelEnabled('debug')) {
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

/** Parses, validates and runs the handler once; `text` is the body of a POST, null for a GET. */
function finish(exchange: Exchange, text: string | null) {
  const { entry } = exchange;
  let result: FastLaneAnswer | Promise<FastLaneAnswer>;
  try {
    if (text !== null) {
      const body: unknown = parseJsonBody(text, entry.config.jsonValues);
      if (entry.validateBody !== null && !entry.validateBody(body)) throw validationFailure(entry.validateBody, 'body');
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

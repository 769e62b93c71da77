// A request the fast lane has taken (fast-lane-matching.ts), from its request line to its handler's
// answer: logged as Fastify logs it (at debug, as on every lane route through the quiet request
// logger, so the log level never changes the way), its body read, parsed and validated with the
// route's compiled schema, and the handler run once; what it answers or throws is written by
// fast-lane-response.ts.
import { IncomingMessage, type ServerResponse } from 'node:http';
import { parseJsonBody } from './json-depth.js';
import type { FastLaneAnswer } from './fast-lane-route.js';
import { fail, logOf, respond } from './fast-lane-response.js';
import type { Exchange, LaneEntry, LaneState } from './fast-lane-state.js';
import type { Principal } from './principal.js';
import { requestIdOf } from './request-id.js';
import { validationFailure } from './validation.js';

/** Where a request being read finds its exchange. */
const READING = Symbol('fast lane exchange');

/**
 * The requests of the lane's server (`createServer`'s IncomingMessage option). Node's HTTP parser
 * hands a body to its request through `push` as it parses it, as if answering a read; while the lane
 * reads a POST, its chunks are taken right there instead of passing through Readable's buffer, its
 * flowing mode and a 'data' and an 'end' event, which cost a lane POST more than its route's own
 * work (decision 0067). Every other request is an ordinary IncomingMessage.
 */
export class LaneRequest extends IncomingMessage {
  declare [READING]: Exchange | undefined;

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    const exchange = this[READING];
    if (exchange === undefined) return super.push(chunk, encoding);
    if (chunk !== null) {
      const chunks = exchange.chunks;
      if (chunks === null) exchange.chunks = chunk as Buffer;
      else if (Array.isArray(chunks)) chunks.push(chunk as Buffer);
      else exchange.chunks = [chunks, chunk as Buffer];
      return true;
    }
    // The whole body is here: the stream ends (empty, as after a read), then the route runs.
    this[READING] = undefined;
    super.push(null);
    const first = exchange.chunks;
    exchange.chunks = null;
    finish(
      exchange,
      first === null ? '' : Array.isArray(first) ? Buffer.concat(first).toString('utf8') : first.toString('utf8'),
    );
    return false;
  }

  /** A client gone before its body arrived has nothing to be answered. */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const exchange = this[READING];
    if (exchange !== undefined) {
      this[READING] = undefined;
      exchange.res.destroy();
    }
    super._destroy(error, callback);
  }
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
  if (req instanceof LaneRequest && req.readableLength === 0 && !req.complete && !req.destroyed) {
    // Nothing of the body parsed yet (always so when the credential was known): it is taken as the
    // parser delivers it.
    req[READING] = exchange;
    return;
  }
  // Some of it is already in the stream's buffer (the credential was read from the database first):
  // read through the stream.
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('error', () => res.destroy());
  req.on('end', () => finish(exchange, Buffer.concat(chunks).toString('utf8')));
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

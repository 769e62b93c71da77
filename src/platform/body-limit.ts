// Over-limit bodies are read and thrown away (up to a cap) before the 413 is sent. Fastify refuses a
// body on its Content-Length, or as soon as a chunked body passes the limit, and closes the
// connection with the rest unread: the kernel then resets it while the client is still sending, and
// a client that reads only once it has sent everything (curl, most SDKs) sees a connection reset
// instead of the answer. Reading what is left lets every client read the 413; past the cap the
// client is cut off as before, so a huge upload still costs the server no more than the cap.
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { payloadTooLarge } from './errors.js';
import { implementedByLane } from './lane-hooks.js';

/** How much of an over-limit body is read (and discarded) so that the client sees the 413. */
export const MAX_DISCARDED_BODY_BYTES = 8 * 1024 * 1024;

/** Reads `stream` to its end, keeping nothing; calls `done` at the end, on an error, or past `cap`. */
function discard(stream: Readable, cap: number, done: () => void) {
  let received = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    stream.removeListener('data', onData);
    stream.removeListener('end', finish);
    stream.removeListener('error', finish);
    stream.removeListener('close', finish);
    done();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > cap) finish();
  };
  stream.on('data', onData);
  stream.once('end', finish);
  stream.once('error', finish);
  stream.once('close', finish);
  // A stream paused for back-pressure stays paused when a listener is added: read on.
  stream.resume();
}

/**
 * A chunked body as Fastify's parser reads it: passed through while within `limit`; past it, the
 * rest is discarded and the stream fails with the 413 once the client has sent everything (or at
 * the cap), so that Fastify answers only then.
 */
function limited(source: Readable, limit: number): Readable {
  const out = new PassThrough();
  let received = 0;
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= limit) {
      if (!out.write(chunk)) {
        source.pause();
        out.once('drain', () => source.resume());
      }
      return;
    }
    source.removeListener('data', onData);
    source.removeListener('end', onEnd);
    out.removeAllListeners('drain');
    discard(source, MAX_DISCARDED_BODY_BYTES - received, () => out.destroy(payloadTooLarge()));
  };
  const onEnd = () => out.end();
  source.on('data', onData);
  source.on('end', onEnd);
  source.on('error', (error) => out.destroy(error));
  return out;
}

type PreParsingDone = (error: Error | null, payload?: Readable) => void;

/** The preParsing hook (callback style: no promise per request on the hot routes). */
function discardOverLimitBodies(request: FastifyRequest, reply: FastifyReply, payload: Readable, done: PreParsingDone) {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const declared = request.headers['content-length'];
  if (declared !== undefined) {
    // Fastify itself answers a malformed length (400) and a body that differs from it.
    const length = Number(declared);
    if (!(length > limit)) return done(null, payload);
    if (length > MAX_DISCARDED_BODY_BYTES) {
      // The body stays unread, so the connection cannot carry another request: the answer says
      // Connection: close and Node closes the socket once it is written, not at the request
      // timeout. (A body that fails while it is read, as a chunked one past the cap does, gets
      // Connection: close from Fastify's body reader.)
      reply.header('connection', 'close');
      return done(payloadTooLarge());
    }
    return discard(payload, MAX_DISCARDED_BODY_BYTES, () => done(payloadTooLarge()));
  }
  if (request.headers['transfer-encoding'] !== undefined) return done(null, limited(payload, limit));
  done(null, payload);
}

export function registerBodyLimits(app: FastifyInstance) {
  // The fast lane declines every body past its route's limit or without a declared length (Fastify
  // then runs this hook), so on what the lane takes the hook has nothing to do.
  app.addHook('preParsing', implementedByLane(discardOverLimitBodies, { name: 'over-limit body discarding' }));
}

// How the fast lane writes what a handler answered or threw: headers as one flat list in the same
// write as a string body, errors rendered by the route's error renderer (error-handler.ts), the very
// function Fastify's error handler calls, and the request's log lines.
import type { OutgoingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { writableHeaders } from './error-handler.js';
import { JSON_TYPE, type FastLaneAnswer } from './fast-lane-route.js';
import type { Exchange } from './fast-lane-state.js';

export function logOf(exchange: Exchange): FastifyBaseLogger {
  return (exchange.log ??= exchange.lane.log!.child({ [exchange.lane.requestIdLabel]: exchange.requestId }));
}

export function respond(exchange: Exchange, answer: FastLaneAnswer) {
  try {
    write(exchange, answer);
  } catch (err) {
    // Node refused what was to be written (a header value, say): answered as Fastify would, 500.
    if (exchange.res.headersSent) return lost(exchange, err);
    fail(exchange, err);
  }
}

/** Answers an error with the route's renderer, the function Fastify's error handler uses. */
export function fail(exchange: Exchange, thrown: unknown) {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  try {
    const { entry } = exchange;
    const answer = entry.render(error, {
      requestId: exchange.requestId,
      config: entry.config,
      params: exchange.input.params,
    });
    if (answer.status >= 500) logOf(exchange).error({ err: error }, 'request failed');
    exchange.lane.stats.errors++;
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
  exchange.lane.stats.served++;
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

// Which requests the fast lane takes: a request is either declined before anything of it is read (it
// then goes to Fastify untouched) or taken and answered by the lane to the end (fast-lane-exchange.ts).
// Declined: another method or path, a query string, a body of another type or of no declared length
// or past the route's limit, params or headers its schemas refuse, a credential the route does not
// accept (no read is made twice: the key cache remembers unknown keys too), a closing server.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { acceptedPrincipal } from './authenticate.js';
import { answer } from './fast-lane-exchange.js';
import { JSON_TYPE } from './fast-lane-route.js';
import type { LaneEntry, LaneState } from './fast-lane-state.js';

/** Whether the lane took the request; when it did not, Fastify is to answer it. */
export function take(lane: LaneState, req: IncomingMessage, res: ServerResponse): boolean {
  const method = req.method;
  if ((method !== 'POST' && method !== 'GET') || lane.closing) return false;
  const url = req.url!;
  if (url.includes('?')) return false;
  let entry = lane.exact[method].get(url);
  let params: Record<string, string | undefined>;
  if (entry !== undefined) params = {};
  else {
    const found = lane.router.find(method, url);
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
  const principal = acceptedPrincipal(headers, entry.auth, lane.resolver!);
  if (principal === null) return false;
  const startedAt = performance.now();
  if (principal instanceof Promise) {
    // The key is read (once: the cache then holds it, for Fastify too if declined). Nothing of the
    // request has been read meanwhile, so it can still go to Fastify untouched.
    void principal.then((accepted) => {
      if (req.destroyed) return; // the client left while its key was read
      if (accepted === null || lane.closing) lane.framework!(req, res);
      else answer(lane, req, res, entry!, params, accepted, startedAt);
    });
    return true;
  }
  answer(lane, req, res, entry, params, principal, startedAt);
  return true;
}

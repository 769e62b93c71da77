// Login must not be callable from another site's page: an Origin naming another origin than the
// request's own, or a browser's Sec-Fetch-Site: cross-site, is refused.
import type { FastifyRequest } from 'fastify';

export function isCrossOrigin(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return true;
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === '') return false;
  if (origin === 'null') return true;
  try {
    const from = new URL(origin);
    // Parse the Host header with the Origin's scheme, so a default port written out (Host:
    // localhost:80 against Origin http://localhost) compares equal, as it is the same origin.
    const own = new URL(`${from.protocol}//${request.headers.host ?? ''}`);
    return from.host !== own.host;
  } catch {
    return true;
  }
}

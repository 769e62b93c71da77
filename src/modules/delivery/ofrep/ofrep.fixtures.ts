// Request helpers and assertions of the OFREP tests.
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { bearer } from '../../../../test/helpers/fixtures.js';

export const OFREP = '/api/ofrep/v1';

/** Authorization: Bearer by default; `{ apiKey: true }` sends X-API-Key instead, as providers may. */
function auth(token: string | undefined, apiKey = false): Record<string, string> {
  if (token === undefined) return {};
  return apiKey ? { 'x-api-key': token } : bearer(token);
}

export interface OfrepCall {
  token?: string;
  apiKey?: boolean;
  headers?: Record<string, string>;
  query?: string;
}

export function single(app: FastifyInstance, key: string, payload: unknown, call: OfrepCall = {}) {
  return app.inject({
    method: 'POST',
    url: `${OFREP}/evaluate/flags/${encodeURIComponent(key)}`,
    headers: { ...auth(call.token, call.apiKey), ...call.headers },
    payload: payload as object,
  });
}

export function bulk(app: FastifyInstance, payload: unknown, call: OfrepCall = {}) {
  return app.inject({
    method: 'POST',
    url: `${OFREP}/evaluate/flags${call.query ? `?${call.query}` : ''}`,
    headers: { ...auth(call.token, call.apiKey), ...call.headers },
    payload: payload as object,
  });
}

/** OFREP error bodies: JSON, a string errorCode, errorDetails, and the flag key where there is one. */
export function expectOfrepError(res: LightMyRequestResponse, status: number, errorCode: string, key?: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assert.equal(typeof body.errorCode, 'string');
  assert.equal(body.errorCode, errorCode, res.body);
  assert.equal(typeof body.errorDetails, 'string');
  if (key === undefined) assert.equal(body.key, undefined, 'no key outside the single-flag route');
  else assert.equal(body.key, key);
  return body as { key?: string; errorCode: string; errorDetails: string; metadata?: Record<string, unknown> };
}

/** A bulk answer's flags by key. */
export function byKey(res: LightMyRequestResponse): Record<string, Record<string, unknown>> {
  return Object.fromEntries(res.json().flags.map((f: { key: string }) => [f.key, f]));
}

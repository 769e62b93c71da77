// What the fast lane's tests share: a request sent over real HTTP (through the lane, or declined to
// Fastify) and through app.inject (never through the lane), and the check that both get the same
// answer, header for header and byte for byte, and went the way the case says.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { TestApp } from '../helpers/test-app.js';
import { fastLaneRoute } from '../../src/platform/fast-lane-route.js';

export const EVALUATE = '/api/v1/evaluate';
export const BULK = '/api/ofrep/v1/evaluate/flags';
export const single = (key: string) => `${BULK}/${key}`;
export const CONFIG = '/api/v1/config';
export const PUBLIC_CONFIG = '/api/v1/public-config';
export const JSON_HEADERS = { 'content-type': 'application/json' };
/** Headers of the connection or the moment, not of the answer. */
const VOLATILE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export type Way = 'lane' | 'framework';

export interface Case {
  name: string;
  /** POST unless said. */
  method?: 'GET' | 'HEAD' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
  way: Way;
  /** Checked when given; the answer must equal Fastify's either way. */
  status?: number;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function normalised(headers: Record<string, unknown>, keepRequestId: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (VOLATILE.has(name) || (name === 'x-request-id' && !keepRequestId)) continue;
    out[name] = String(value);
  }
  return out;
}

const hasBody = (c: Case) => (c.method ?? 'POST') === 'POST';

export async function overHttp(base: string, c: Case): Promise<Answer> {
  const res = await fetch(base + c.url, {
    method: c.method ?? 'POST',
    headers: c.headers,
    body: hasBody(c) ? c.body : undefined,
  });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

async function throughFastify(app: FastifyInstance, c: Case): Promise<Answer> {
  const res = await app.inject({
    method: c.method ?? 'POST',
    url: c.url,
    headers: c.headers,
    payload: hasBody(c) ? c.body : undefined,
  });
  return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.body };
}

/** Sends the case over HTTP and through Fastify and checks they agree, and which way it went. */
export async function expectSameAnswer(test: TestApp, base: string, c: Case): Promise<Answer> {
  const { app } = test;
  // Whether the key is in memory or not changes nothing: the lane reads an uncached one itself.
  const before = app.fastLane.stats.served;
  const viaHttp = await overHttp(base, c);
  const way: Way = app.fastLane.stats.served > before ? 'lane' : 'framework';
  const viaFastify = await throughFastify(app, c);
  assert.equal(way, c.way, `${c.name}: taken the way it should be (${viaHttp.status} ${viaHttp.body.slice(0, 200)})`);
  if (c.status !== undefined) assert.equal(viaHttp.status, c.status, `${c.name}: ${viaHttp.body}`);
  assert.equal(viaHttp.status, viaFastify.status, c.name);
  // A well-formed request id is echoed by both; otherwise each makes its own.
  const keepRequestId = /^[A-Za-z0-9._:-]{1,128}$/.test(c.headers['x-request-id'] ?? '');
  // Error bodies name the request id, which differs between the two requests unless the client set it.
  const bodyOf = (answer: Answer) =>
    keepRequestId ? answer.body : answer.body.replace(/"requestId":"[^"]*"/, '"requestId":"…"');
  assert.equal(bodyOf(viaHttp), bodyOf(viaFastify), c.name);
  const httpHeaders = normalised(viaHttp.headers, keepRequestId);
  const fastifyHeaders = normalised(viaFastify.headers, keepRequestId);
  // Each sync counts, so the second of the two has one fewer left.
  if (httpHeaders['x-sync-quota-remaining'] !== undefined && viaHttp.status !== 429) {
    assert.equal(
      Number(fastifyHeaders['x-sync-quota-remaining']),
      Number(httpHeaders['x-sync-quota-remaining']) - 1,
      c.name,
    );
    delete httpHeaders['x-sync-quota-remaining'];
    delete fastifyHeaders['x-sync-quota-remaining'];
  }
  assert.deepEqual(httpHeaders, fastifyHeaders, c.name);
  assert.match(String(viaHttp.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/, `${c.name}: a request id`);
  return viaHttp;
}

/** The app listening on a free port (buildTestApp closes it when the test ends). */
export const listening = (test: TestApp) => test.app.listen({ port: 0, host: '127.0.0.1' });

/** A lane route whose handler counts its runs and fails as `fail` says. */
export function countingRoute(app: FastifyInstance, runs: { count: number }, fail: () => never) {
  const route = fastLaneRoute({ allow: ['sdk'] })<{ n: number }>(({ principal }) => {
    runs.count++;
    if (principal.type !== 'sdk') throw new Error('an sdk_ route got another principal');
    return fail();
  });
  app.post(
    '/test/counting',
    {
      config: route.config,
      schema: {
        hide: true,
        body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } }, additionalProperties: false },
      },
    },
    route.handler,
  );
}

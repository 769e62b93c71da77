// Issue 18: an error raised while the headers are written (Node refuses a value) comes out as the
// contract's 500 with a request id, through Fastify and through the fast lane, never Node's or
// Fastify's bare 500; an error's own refused header does not stop its answer either.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects } from '../../test/helpers/test-app.js';
import { call, expectError, userWithApp } from '../../test/helpers/fixtures.js';
import { AppError } from './errors.js';
import { fastLaneRoute } from './fast-lane-route.js';
import { jsonHeaderValue } from './header-values.js';

const REFUSED = ['事件', 'line\nbreak', 'del\u007f'];

function headerRoutes(app: FastifyInstance) {
  for (const [i, value] of REFUSED.entries()) {
    app.get(`/__test/header/returned/${i}`, async (_request, reply) => {
      reply.header('x-client-text', value);
      return { ok: true };
    });
    // As the insights csv answer does: the handler sends itself, so writeHead throws inside it.
    app.get(`/__test/header/sent/${i}`, async (_request, reply) => {
      reply.header('x-client-text', value).type('text/csv; charset=utf-8').send(Buffer.from('a,b\n'));
      return reply;
    });
  }
  app.get('/__test/header/error', async () => {
    throw new AppError(429, 'rate_limited', 'Slow down.', { headers: { 'retry-after': '事' } });
  });
  const lane = fastLaneRoute({ allow: ['sdk'] })(() => ({
    status: 200,
    headers: { 'x-client-text': '事件' },
    body: '{}',
  }));
  app.get('/__test/header/lane', { config: lane.config, handler: lane.handler });
  const laneError = fastLaneRoute({ allow: ['sdk'] })(() => {
    throw new AppError(429, 'rate_limited', 'Slow down.', { headers: { 'retry-after': '事' } });
  });
  app.get('/__test/header/lane-error', { config: laneError.config, handler: laneError.handler });
}

for (const dialect of dialects) {
  describe(`errors while writing headers on ${dialect}`, () => {
    test('a refused header value answers the contract 500 with a request id, logged; an error keeps its status without its refused header', async (t) => {
      const { app, logs } = await buildTestApp(t, { dialect, captureLogs: true, routes: headerRoutes });
      for (const kind of ['returned', 'sent']) {
        for (const i of REFUSED.keys()) {
          const res = await call(app, 'GET', `/__test/header/${kind}/${i}`);
          const error = expectError(res, 500, 'internal_error');
          assert.equal(res.headers['x-client-text'], undefined);
          assert.ok(!res.body.includes('ERR_INVALID_CHAR') && !res.body.includes('statusCode'), res.body);
          assert.ok(logs().includes(error.requestId), 'the failure is logged with its request id');
        }
      }
      const limited = await call(app, 'GET', '/__test/header/error');
      expectError(limited, 429, 'rate_limited');
      assert.equal(limited.headers['retry-after'], undefined);
    });

    test('the fast lane answers the same over real HTTP', async (t) => {
      const { app } = await buildTestApp(t, { dialect, routes: headerRoutes });
      const s = await userWithApp(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      const get = (path: string) =>
        fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${s.sdk.prod}` } });
      const res = await get('/__test/header/lane');
      assert.equal(res.status, 500);
      const body = (await res.json()) as { error: { code: string; requestId: string } };
      assert.equal(body.error.code, 'internal_error');
      assert.equal(body.error.requestId, res.headers.get('x-request-id'));
      const limited = await get('/__test/header/lane-error');
      assert.equal(limited.status, 429);
      assert.equal(((await limited.json()) as { error: { code: string } }).error.code, 'rate_limited');
      assert.equal(limited.headers.get('retry-after'), null);
    });
  });
}

describe('jsonHeaderValue', () => {
  test('printable ASCII that JSON.parse reads back exactly, for every kind of text', () => {
    const texts = [
      'plain',
      'ü',
      'Ω',
      '事件',
      '😀',
      '\ud800',
      '\udfff',
      '\u0000\u001f\u007f\u0080\u009f',
      '"\\/',
      'a\u2028b',
      '%41',
      '\\u0041',
    ];
    for (const text of texts) {
      const value = jsonHeaderValue({ id: text, list: [text] });
      assert.match(value, /^[\x20-\x7e]*$/, JSON.stringify(text));
      assert.deepEqual(JSON.parse(value), { id: text, list: [text] });
    }
    assert.equal(jsonHeaderValue({ a: 'x', n: 1 }), '{"a":"x","n":1}', 'ASCII JSON is unchanged');
  });
});

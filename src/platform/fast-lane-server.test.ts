// The fast lane's place in the server: Fastify options it cannot honour are refused at start with a
// clear message; the hooks it checks are read through Fastify's public addHook (no private symbol),
// so a plugin scoped to a prefix may add hooks of its own; and the lane can be turned off.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer } from '../../test/helpers/fixtures.js';
import { buildTestApp } from '../../test/helpers/test-app.js';
import { flagsFixture } from '../modules/delivery/evaluation/evaluation.fixtures.js';
import { createFastLane } from './fast-lane.js';

const EVALUATE = '/api/v1/evaluate';

async function evaluateOverHttp(app: FastifyInstance, token: string) {
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const res = await fetch(`${address}${EVALUATE}`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: '{"context":{}}',
  });
  return { status: res.status, body: await res.text() };
}

describe('the fast lane in the server', () => {
  test('https and http2 are refused when the server is made, naming the option', () => {
    const lane = createFastLane({ maxParamLength: 512, enabled: true });
    const handler = () => undefined;
    assert.throws(
      () => lane.serverFactory(handler, { https: { key: 'k', cert: 'c' } }),
      /HTTP\/1\.1 only: the Fastify option https is not supported/,
    );
    assert.throws(() => lane.serverFactory(handler, { http2: true }), /option http2 is not supported/);
    assert.throws(
      () => lane.serverFactory(handler, { http2: true, https: {} }),
      /options https and http2 are not supported/,
    );
    const server = lane.serverFactory(handler, { http2: false });
    assert.equal(typeof server.listen, 'function');
  });

  test('a plugin scoped to a prefix may add hooks the lane does not know; the lane routes are still served by the lane', async (t) => {
    const fixture = await buildTestApp(t, {
      dialect: 'sqlite',
      routes: (app) =>
        void app.register(
          async (scope) => {
            scope.addHook('onRequest', async function consoleSecurityHeaders(_request, reply) {
              reply.header('x-frame-options', 'DENY');
            });
            scope.get('/page', async () => ({ ok: true }));
          },
          { prefix: '/console-like' },
        ),
    });
    const fx = await flagsFixture(fixture);
    const page = await fixture.app.inject({ method: 'GET', url: '/console-like/page' });
    assert.equal(page.headers['x-frame-options'], 'DENY');
    const served = fixture.app.fastLane.stats.served;
    const res = await evaluateOverHttp(fixture.app, fx.sdk);
    assert.equal(res.status, 200, res.body);
    assert.equal(fixture.app.fastLane.stats.served, served + 1, 'answered by the lane');
  });

  test('a hook added to the whole app that the lane does not implement stops the app from starting', async (t) => {
    await assert.rejects(
      buildTestApp(t, {
        dialect: 'sqlite',
        routes: (app) => void app.addHook('onRequest', async function globalTracing() {}),
      }),
      /fast lane route .*globalTracing/,
    );
  });

  test('with the lane off, Fastify answers the lane routes the same way', async (t) => {
    const fixture = await buildTestApp(t, { dialect: 'sqlite', config: { fastLane: false } });
    const fx = await flagsFixture(fixture);
    const res = await evaluateOverHttp(fixture.app, fx.sdk);
    assert.equal(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).results.length, 6, res.body);
    assert.equal(fixture.app.fastLane.stats.served, 0);
  });
});

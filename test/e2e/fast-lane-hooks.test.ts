// What the fast lane does in Fastify's place around a handler: the app does not start with a hook or
// an error handler the lane cannot honour, and the lane logs its request lines as Fastify does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer } from '../helpers/fixtures.js';
import { buildTestApp, dialects } from '../helpers/test-app.js';
import { flagsFixture } from '../../src/modules/delivery/evaluation/evaluation.fixtures.js';
import { countingRoute, EVALUATE, expectSameAnswer, JSON_HEADERS, listening } from './fast-lane.fixtures.js';

for (const dialect of dialects) {
  describe(`fast lane hooks and logs (${dialect})`, () => {
    test('a hook the lane does not implement, or an error handler of its own, stops the app from starting', async (t) => {
      for (const [name, setUp] of [
        [
          'an onRequest hook',
          (scope: FastifyInstance) =>
            scope.addHook('onRequest', function rateLimit(_request, _reply, done) {
              done();
            }),
        ],
        ['an onSend hook', (scope: FastifyInstance) => scope.addHook('onSend', async function tracing() {})],
        ['an error handler', (scope: FastifyInstance) => scope.setErrorHandler(() => undefined)],
      ] as const) {
        await assert.rejects(
          buildTestApp(t, {
            dialect,
            routes: (app) =>
              void app.register(async (scope) => {
                setUp(scope);
                countingRoute(scope, { count: 0 }, () => {
                  throw new Error('never');
                });
              }),
          }),
          (err: Error) =>
            /fast lane route POST \/test\/counting/.test(err.message) &&
            (name === 'an error handler' ? /error handler/ : /rateLimit|tracing/).test(err.message),
          name,
        );
      }
    });

    test('with request logging at debug the lane still answers, and logs its request lines as Fastify does', async (t) => {
      const test = await buildTestApp(t, { dialect, captureLogs: true });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      await expectSameAnswer(test, base, {
        name: 'evaluate',
        url: EVALUATE,
        headers: { ...sdk, 'x-request-id': 'lane-1' },
        body: '{"context":{}}',
        way: 'lane',
        status: 200,
      });
      await expectSameAnswer(test, base, {
        name: 'evaluate with a query',
        url: `${EVALUATE}?x=1`,
        headers: { ...sdk, 'x-request-id': 'framework-1' },
        body: '{"context":{}}',
        way: 'framework',
        status: 200,
      });
      const lines = test
        .logs()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      // The moment, the port and the duration differ; everything else must not. The first two lines of
      // each id are the HTTP request's (the second two, through inject, are Fastify's either way).
      const shape = (reqId: string) =>
        lines
          .filter((l) => l.reqId === reqId)
          .slice(0, 2)
          .map(({ time: _t, responseTime, ...line }) => ({
            ...line,
            reqId: 'id',
            ...(typeof responseTime === 'number' ? { responseTime: 'ms' } : {}),
            ...(line.req ? { req: { ...(line.req as object), url: '/', remotePort: 0 } } : {}),
          }));
      assert.equal(shape('lane-1').length, 2, JSON.stringify(lines.filter((l) => l.reqId === 'lane-1')));
      assert.deepEqual(shape('lane-1'), shape('framework-1'));
      assert.equal(lines.find((l) => l.reqId === 'lane-1')!.level, 20, 'request lines of lane routes are at debug');
    });
  });
}

// Errors the fast lane answers itself, as Fastify's error handler would: a route's own errors (the
// sync quota's 429), and whatever a handler throws, with the handler run once per request.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer } from '../helpers/fixtures.js';
import { buildTestApp, dialects } from '../helpers/test-app.js';
import { flagsFixture } from '../../src/modules/delivery/evaluation/evaluation.fixtures.js';
import {
  BULK,
  countingRoute,
  expectSameAnswer,
  JSON_HEADERS,
  listening,
  overHttp,
  PUBLIC_CONFIG,
  type Case,
} from './fast-lane.fixtures.js';

for (const dialect of dialects) {
  describe(`fast lane errors (${dialect})`, () => {
    test("past the sync quota the lane answers 429 itself, with the error handler's body", async (t) => {
      const quotas = { configSyncs: 4, apps: 10, flags: 500 };
      // A clock that stands still: Retry-After counts seconds to the month's end, and the HTTP and
      // inject answers compared below must not fall on either side of a second's boundary.
      const now = Date.now();
      const test = await buildTestApp(t, {
        dialect,
        now: () => now,
        config: { quotas: { free: quotas, pro: quotas } },
      });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const c: Case = {
        name: 'bulk',
        url: BULK,
        headers: { ...bearer(fx.pub), ...JSON_HEADERS },
        body: '{"context":{"targetingKey":"q"}}',
        way: 'lane',
        status: 200,
      };
      await expectSameAnswer(test, base, c); // syncs 1 and 2
      await expectSameAnswer(test, base, c); // 3 and 4
      const errors = test.app.fastLane.stats.errors;
      await expectSameAnswer(test, base, { ...c, status: 429 });
      await expectSameAnswer(test, base, {
        name: 'public config past the quota',
        method: 'GET',
        url: PUBLIC_CONFIG,
        headers: bearer(fx.pub),
        body: '',
        way: 'lane',
        status: 429,
      });
      assert.equal(test.app.fastLane.stats.errors, errors + 2);
      const refused = await overHttp(base, c);
      assert.match(refused.headers['retry-after']!, /^\d+$/);
      assert.equal(JSON.parse(refused.body).errorCode, 'MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED');
    });

    test('a handler runs once per request: what it throws is answered by the lane', async (t) => {
      const runs = { count: 0 };
      const test = await buildTestApp(t, {
        dialect,
        routes: (app) =>
          countingRoute(app, runs, () => {
            throw Object.assign(new Error('boom'), { statusCode: 503 });
          }),
      });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const c: Case = {
        name: 'throws',
        url: '/test/counting',
        headers: { ...bearer(fx.sdk), ...JSON_HEADERS },
        body: '{"n":1}',
        way: 'lane',
        status: 500,
      };
      await expectSameAnswer(test, base, c);
      assert.equal(runs.count, 2, 'once over HTTP, once through inject');
      // A body its schema refuses never reaches the handler.
      await expectSameAnswer(test, base, { ...c, name: 'refused body', body: '{"n":"x"}', status: 400 });
      assert.equal(runs.count, 2);
    });
  });
}

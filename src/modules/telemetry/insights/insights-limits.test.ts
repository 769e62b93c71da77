// The bounds on an insights query's work: deadlines (408 with a cursor to resume), the per-credential
// rate limit and the cost ceiling on scanned buckets.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError } from '../../../../test/helpers/fixtures.js';
import { DAY, exposure, HOUR, sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { cohort, events, iso, query } from './insights.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

for (const dialect of dialects) {
  describe(`insights limits on ${dialect}`, () => {
    test('a deadline already past gives 408 with the full metadata and a cursor that resumes from the start; the quota is charged', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      await cohort(app, s.sdkProd);
      const body = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - 2 * HOUR),
        to: iso(T0),
        grain: 'hour',
        measures: ['events', 'subjects'],
      };
      for (const [res, deadline] of [
        [await query(app, s.user.token, { ...body, deadlineAt: T0 - 1 }), T0 - 1],
        [
          await query(app, s.user.token, { ...body, deadlineAt: T0 + 5000 }, { 'x-service-deadline': String(T0 - 10) }),
          T0 - 10,
        ],
      ] as const) {
        const error = expectError(res, 408, 'query_deadline_exceeded');
        const m = error.metadata as any;
        assert.equal(m.retryable, true);
        assert.equal(typeof m.remediation, 'string');
        assert.match(m.cursor, /^ia1_/);
        assert.deepEqual(m.execution, { deadline: iso(deadline), elapsed: 0, remaining: 0, pages: 0 });
        assert.deepEqual(m.partial, { state: 'scan_incomplete', rowsAvailable: false, scannedBuckets: 0 });
        assert.deepEqual(m.queryCost, { request: 0, resumed: 0, cumulative: 0 });
        const resumed = await query(app, s.user.token, { ...body, cursor: m.cursor });
        assert.equal(resumed.statusCode, 200, resumed.body);
        assert.equal(resumed.json().rows.length, 1);
      }
      const after = (await query(app, s.user.token, body)).json();
      assert.equal(after.rateLimit.remaining, 60 - 5);

      const ev = await events(app, s.user.token, {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - DAY),
        to: iso(T0),
        kinds: ['exposure'],
        deadlineAt: 1,
      });
      const m = expectError(ev, 408, 'query_deadline_exceeded').metadata as any;
      assert.deepEqual(m.partial, { state: 'scan_incomplete', rowsAvailable: false, scannedEvents: 0 });
      assert.match(m.cursor, /^ie1_/);
      const resumed = await events(app, s.user.token, {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - DAY),
        to: iso(T0),
        kinds: ['exposure'],
        cursor: m.cursor,
      });
      assert.equal(resumed.json().events.length, 30);
    });

    test('per-credential rate limit: 429 with Retry-After, then a new minute', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now, config: { insightsQueriesPerMinute: 2 } });
      const s = await telemetryApp(app);
      const body = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - HOUR),
        to: iso(T0),
        grain: 'hour',
        measures: ['events'],
      };
      assert.equal((await query(app, s.user.token, body)).json().rateLimit.remaining, 1);
      assert.equal(
        (
          await events(app, s.user.token, {
            appId: s.appId,
            env: 'prod',
            from: iso(T0 - HOUR),
            to: iso(T0),
            kinds: ['exposure'],
          })
        ).statusCode,
        200,
      );
      clock.advance(20_000);
      const limited = await query(app, s.user.token, body);
      const error = expectError(limited, 429, 'rate_limited');
      assert.equal(limited.headers['retry-after'], '40');
      assert.deepEqual(error.metadata, { rateLimit: { limit: 2, remaining: 0, resetAt: iso(T0 + 60_000) } });
      assert.equal((await query(app, s.admin, body)).statusCode, 200, 'another credential has its own quota');
      clock.advance(40_000);
      assert.equal((await query(app, s.user.token, body)).statusCode, 200);
    });

    test('more than 10,000 scanned buckets is 429 query_too_costly', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      await sendBatch(app, s.sdkProd, [exposure(T0 - HOUR, 'u')]);
      const db = database.handle.db;
      const template = await db.selectFrom('telemetry_rollups').selectAll().executeTakeFirstOrThrow();
      const rows = Array.from({ length: 10_000 }, (_, i) => ({ ...template, variant: `v${i}` }));
      for (let i = 0; i < rows.length; i += 500)
        await db
          .insertInto('telemetry_rollups')
          .values(rows.slice(i, i + 500))
          .execute();
      const res = await query(app, s.user.token, {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - HOUR),
        to: iso(T0),
        grain: 'hour',
        measures: ['events'],
      });
      expectError(res, 429, 'query_too_costly');
    });
  });
}

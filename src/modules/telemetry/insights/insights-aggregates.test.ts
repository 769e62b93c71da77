// Aggregate queries: rows, suppression, metadata, formats, day grain, scans over several pages and
// the ia1_ cursors of long answers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { createKey, expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { DAY, exposure, HOUR, sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { cohort, iso, query } from './insights.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

for (const dialect of dialects) {
  describe(`insights aggregates on ${dialect}`, () => {
    test('aggregates with suppression of small cells, every metadata field, and csv and ndjson equal to json', async (t) => {
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
        dimensions: ['variant', 'kind'],
        measures: ['events', 'subjects', 'exposures', 'outcomes', 'metricSum', 'metricMean'],
      };
      const res = await query(app, s.user.token, body);
      assert.equal(res.statusCode, 200, res.body);
      const json = res.json();
      assert.deepEqual(Object.keys(json).sort(), [
        'approximation',
        'effectiveWindow',
        'engineVersion',
        'freshness',
        'nextCursor',
        'queryCost',
        'rateLimit',
        'requestedWindow',
        'rows',
        'schemaVersion',
        'suppression',
        'watermark',
      ]);
      assert.equal(json.schemaVersion, 'insights/v1');
      const bucket = iso(T0 - HOUR);
      assert.deepEqual(json.rows, [
        {
          bucketStart: bucket,
          dimensions: { variant: 'off', kind: 'exposure' },
          measures: {
            events: null,
            subjects: null,
            exposures: null,
            outcomes: null,
            metricSum: null,
            metricMean: null,
          },
        },
        {
          bucketStart: bucket,
          dimensions: { variant: 'on', kind: 'exposure' },
          measures: { events: 25, subjects: 25, exposures: 25, outcomes: 0, metricSum: 0, metricMean: null },
        },
        {
          bucketStart: bucket,
          dimensions: { variant: 'on', kind: 'outcome' },
          measures: { events: 25, subjects: 25, exposures: 0, outcomes: 25, metricSum: 300, metricMean: 12 },
        },
      ]);
      assert.deepEqual(json.suppression, { minimumSubjects: 20, suppressedCells: 1, excludedParts: 0 });
      assert.deepEqual(json.requestedWindow, { from: iso(T0 - 2 * HOUR), to: iso(T0) });
      assert.deepEqual(json.effectiveWindow, { from: iso(T0 - 2 * HOUR), to: iso(T0) });
      assert.deepEqual(json.queryCost, { scannedBuckets: 3, units: 6 });
      assert.equal(json.watermark.receivedAt, iso(T0));
      assert.deepEqual(json.freshness, { asOf: iso(T0), lagSeconds: 0 });
      assert.equal(json.approximation.subjects, 'hyperloglog-p12');
      assert.ok(json.approximation.relativeStandardError <= 0.02);
      assert.deepEqual(json.rateLimit, { limit: 60, remaining: 59, resetAt: iso(T0 + 60_000) });
      assert.equal(json.nextCursor, null);

      const ndjson = await query(app, s.user.token, { ...body, format: 'ndjson' });
      assert.equal(ndjson.statusCode, 200);
      assert.match(String(ndjson.headers['content-type']), /^application\/x-ndjson/);
      assert.deepEqual(
        ndjson.body
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l)),
        json.rows,
      );
      const metadata = JSON.parse(String(ndjson.headers['x-insights-metadata']));
      assert.deepEqual(metadata.suppression, json.suppression);
      assert.deepEqual(metadata.watermark, json.watermark);
      assert.deepEqual(JSON.parse(String(ndjson.headers['x-insights-query-cost'])), json.queryCost);

      const csv = await query(app, s.user.token, { ...body, format: 'csv' });
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      const lines = csv.body.trimEnd().split('\n');
      assert.equal(lines[0], 'bucketStart,variant,kind,events,subjects,exposures,outcomes,metricSum,metricMean');
      const fromCsv = lines.slice(1).map((line) => {
        const cells = line.split(',');
        const num = (c: string) => (c === '' ? null : Number(c));
        return {
          bucketStart: cells[0],
          dimensions: { variant: cells[1], kind: cells[2] },
          measures: {
            events: num(cells[3]!),
            subjects: num(cells[4]!),
            exposures: num(cells[5]!),
            outcomes: num(cells[6]!),
            metricSum: num(cells[7]!),
            metricMean: num(cells[8]!),
          },
        };
      });
      assert.deepEqual(fromCsv, json.rows);
      assert.equal(csv.headers['x-insights-suppression'], JSON.stringify(json.suppression));
      assert.equal(csv.headers['x-ratelimit-remaining'], '57');

      // Day grain merges hours; an admin key of the app may query too.
      const day = await query(app, s.admin, {
        ...body,
        grain: 'day',
        dimensions: ['flagKey'],
        measures: ['subjects', 'events', 'decisions'],
      });
      assert.deepEqual(day.json().rows, [
        {
          bucketStart: iso(Date.UTC(2026, 10, 20)),
          dimensions: { flagKey: 'shown' },
          measures: { subjects: 25, events: 50, decisions: 0 },
        },
      ]);
      // The 5 events of variant off (5 subjects, a suppressed cell of its own) are left out of the total.
      assert.equal(day.json().suppression.excludedParts, 1);
      assert.deepEqual(day.json().effectiveWindow, {
        from: iso(Date.UTC(2026, 10, 20)),
        to: iso(Date.UTC(2026, 10, 21)),
      });
    });

    test('a scan over several pages (20 days read a week at a time) counts every day once, subjects per day', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      // Day d (1..20 days before T0's day) has 20 + d subjects, the first 20 of them every day.
      const items = [];
      for (let d = 1; d <= 20; d++)
        for (let i = 0; i < 20 + d; i++)
          items.push(exposure(Date.UTC(2026, 10, 20) - d * DAY + 3 * HOUR, `subject-${i}`));
      for (let i = 0; i < items.length; i += 100)
        assert.equal(
          (await sendBatch(app, s.sdkProd, items.slice(i, i + 100))).json().accepted,
          Math.min(100, items.length - i),
        );
      const res = await query(app, s.user.token, {
        appId: s.appId,
        env: 'prod',
        from: iso(Date.UTC(2026, 10, 20) - 20 * DAY),
        to: iso(Date.UTC(2026, 10, 20)),
        grain: 'day',
        measures: ['events', 'subjects'],
        filters: { flagKey: 'shown' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        res.json().rows,
        Array.from({ length: 20 }, (_, k) => {
          const d = 20 - k;
          return {
            bucketStart: iso(Date.UTC(2026, 10, 20) - d * DAY),
            dimensions: {},
            measures: { events: 20 + d, subjects: 20 + d },
          };
        }),
      );
      assert.equal(res.json().queryCost.scannedBuckets, 20);
    });

    test('pages of 1,000 rows with ia1_ cursors bound to the credential and the query, expiring after 15 minutes', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      // 24 hours × 42 variants = 1,008 cells.
      const items = [];
      for (let h = 0; h < 24; h++)
        for (let v = 0; v < 42; v++) items.push(exposure(T0 - DAY + h * HOUR, 'u', { variant: `v${v}` }));
      for (let i = 0; i < items.length; i += 100)
        assert.equal((await sendBatch(app, s.sdkProd, items.slice(i, i + 100))).statusCode, 200);
      const body = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - DAY),
        to: iso(T0),
        grain: 'hour',
        dimensions: ['variant'],
        measures: ['events'],
      };
      const first = (await query(app, s.user.token, body)).json();
      assert.equal(first.rows.length, 1000);
      assert.equal(first.suppression.suppressedCells, 1000);
      assert.match(first.nextCursor, /^ia1_/);
      assert.ok(first.nextCursor.length <= 8192);
      const second = await query(app, s.user.token, { ...body, cursor: first.nextCursor });
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.json().rows.length, 8);
      assert.equal(second.json().nextCursor, null);
      assert.notEqual(
        second.json().rows[0].bucketStart + second.json().rows[0].dimensions.variant,
        first.rows[999].bucketStart + first.rows[999].dimensions.variant,
      );
      // Another credential of the same user, another query, another prefix, a forged one: 400; never echoed.
      const other = await createKey(app, s.user.token, { appId: s.appId, type: 'admin' });
      for (const res of [
        await query(app, s.admin, { ...body, cursor: first.nextCursor }),
        await query(app, other.token, { ...body, cursor: first.nextCursor }),
        await query(app, s.user.token, { ...body, measures: ['subjects'], cursor: first.nextCursor }),
        await query(app, s.user.token, { ...body, cursor: `ie1_${first.nextCursor.slice(4)}` }),
        await query(app, s.user.token, { ...body, cursor: `${first.nextCursor.slice(0, -3)}AAA` }),
      ]) {
        expectValidation(res, '/cursor');
        assert.ok(!res.body.includes(first.nextCursor.slice(4, 40)), 'the cursor is not echoed');
      }
      clock.advance(15 * 60_000 + 1);
      expectError(await query(app, s.user.token, { ...body, cursor: first.nextCursor }), 409, 'insight_cursor_expired');
    });
  });
}

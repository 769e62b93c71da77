import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import {
  assertContainsNone,
  call,
  createKey,
  expectError,
  expectValidation,
  signUp,
} from '../../../../test/helpers/fixtures.js';
import { exposure, eventId, sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (t: number) => new Date(t).toISOString();

function query(
  app: FastifyInstance,
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(app, 'POST', '/api/v1/insights/query', { token, payload: body, headers });
}
function events(
  app: FastifyInstance,
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return call(app, 'POST', '/api/v1/insights/events', { token, payload: body, headers });
}

/** 25 subjects see variant `on`, 5 see `off`, in the hour before T0; outcomes carry revenue. */
async function cohort(app: FastifyInstance, token: string) {
  const at = T0 - HOUR + 60_000;
  const items = [
    ...Array.from({ length: 25 }, (_, i) =>
      exposure(at, `subject-${i}`, { attributes: { email: `leak-${i}@example.com` }, value: 'served-secret' }),
    ),
    ...Array.from({ length: 5 }, (_, i) => exposure(at, `subject-${i}`, { variant: 'off' })),
    ...Array.from({ length: 25 }, (_, i) => ({
      id: eventId('o'),
      kind: 'outcome',
      timestamp: iso(at + 1000),
      targetingKey: `subject-${i}`,
      flagKey: 'shown',
      variant: 'on',
      metricKey: 'revenue',
      metricValue: i,
    })),
  ];
  const res = await sendBatch(app, token, items.slice(0, 50));
  assert.equal(res.json().accepted, 50, res.body);
  assert.equal((await sendBatch(app, token, items.slice(50))).json().accepted, 5);
}

for (const dialect of dialects) {
  describe(`insights on ${dialect}`, () => {
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

    test('window, dimension, measure and filter rules; access; another app is 403', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const base = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - HOUR),
        to: iso(T0),
        grain: 'hour',
        measures: ['events'],
      };
      expectValidation(await query(app, s.user.token, { ...base, from: iso(T0), to: iso(T0 - HOUR) }), '/to');
      expectValidation(await query(app, s.user.token, { ...base, from: iso(T0 - 2 * DAY) }), '/filters');
      expectValidation(
        await query(app, s.user.token, { ...base, from: iso(T0 - 91 * DAY), filters: { flagKey: 'shown' } }),
        '/to',
      );
      assert.equal(
        (
          await query(app, s.user.token, {
            ...base,
            from: iso(T0 - 30 * DAY),
            filters: { flagKey: ['shown', 'hidden'] },
          })
        ).statusCode,
        200,
      );
      assert.equal(
        (await query(app, s.user.token, { ...base, from: iso(T0 - 3 * DAY), filters: { experimentId: 'exp' } }))
          .statusCode,
        200,
      );
      expectValidation(await query(app, s.user.token, { ...base, dimensions: ['source'] }), '/dimensions/0');
      expectValidation(
        await query(app, s.user.token, { ...base, dimensions: ['flagKey', 'variant', 'kind', 'reason'] }),
        '/dimensions',
      );
      expectValidation(await query(app, s.user.token, { ...base, measures: [] }), '/measures');
      expectValidation(
        await query(app, s.user.token, { ...base, filters: { targetingKey: 'x' } }),
        '/filters/targetingKey',
      );
      expectValidation(await query(app, s.user.token, { ...base, extra: 1 }), '/extra');
      expectValidation(
        await events(app, s.user.token, {
          appId: s.appId,
          env: 'prod',
          from: iso(T0 - 8 * DAY),
          to: iso(T0),
          kinds: ['exposure'],
        }),
        '/to',
      );
      expectValidation(
        await events(app, s.user.token, { appId: s.appId, env: 'prod', from: iso(T0 - DAY), to: iso(T0), kinds: [] }),
        '/kinds',
      );
      expectValidation(
        await events(app, s.user.token, {
          appId: s.appId,
          env: 'prod',
          from: iso(T0 - DAY),
          to: iso(T0),
          kinds: ['exposure'],
          limit: 101,
        }),
        '/limit',
      );
      const stranger = await signUp(app);
      expectError(await query(app, stranger.token, base), 403, 'forbidden');
      expectError(await query(app, s.sdkProd, base), 401, 'unauthorized');
      expectError(
        await events(app, s.pub, {
          appId: s.appId,
          env: 'prod',
          from: iso(T0 - DAY),
          to: iso(T0),
          kinds: ['exposure'],
        }),
        401,
        'unauthorized',
      );
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

    test('events: redacted, newest first, ie1_ pages, a legacy cursor accepted once; nothing reveals a subject or attribute', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      await cohort(app, s.sdkProd);
      const base = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - DAY),
        to: iso(T0 + 1),
        kinds: ['exposure', 'outcome'],
      };
      const first = await events(app, s.user.token, { ...base, limit: 20, filters: { variant: 'on' } });
      assert.equal(first.statusCode, 200, first.body);
      const page = first.json();
      assert.equal(page.events.length, 20);
      assert.deepEqual(Object.keys(page).sort(), [
        'checkpoint',
        'events',
        'execution',
        'freshness',
        'nextCursor',
        'queryCost',
      ]);
      assert.deepEqual(Object.keys(page.events[0]).sort(), [
        'experimentId',
        'flagKey',
        'id',
        'iterationId',
        'iterationRevision',
        'kind',
        'metricKey',
        'metricValue',
        'reason',
        'receivedAt',
        'source',
        'timestamp',
        'variant',
      ]);
      assert.deepEqual(page.events[0].source, { appId: s.appId, env: 'prod' });
      assert.equal(page.events[0].kind, 'outcome');
      assert.deepEqual(page.queryCost, { scannedEvents: 21 });
      assert.deepEqual(page.execution, { deadline: iso(T0 + 10_000), elapsed: 0 });
      const times = page.events.map((e: any) => e.timestamp + e.id);
      assert.deepEqual(times, [...times].sort().reverse());
      const second = await events(app, s.user.token, {
        ...base,
        limit: 20,
        filters: { variant: 'on' },
        cursor: page.nextCursor,
      });
      const rest = second.json().events;
      assert.equal(rest.length, 20);
      assert.equal(new Set([...page.events, ...rest].map((e: any) => e.id)).size, 40);
      const third = await events(app, s.user.token, {
        ...base,
        limit: 20,
        filters: { variant: 'on' },
        cursor: second.json().nextCursor,
      });
      assert.equal(third.json().events.length, 10);
      assert.equal(third.json().nextCursor, null);
      expectValidation(
        await events(app, s.admin, { ...base, limit: 20, filters: { variant: 'on' }, cursor: page.nextCursor }),
        '/cursor',
      );
      expectValidation(await events(app, s.user.token, { ...base, limit: 20, cursor: page.nextCursor }), '/cursor');
      expectValidation(await events(app, s.user.token, { ...base, cursor: 'ia1_abc.def' }), '/cursor');

      // A legacy cursor: the 20th event of the first page.
      const twentieth = page.events[19];
      const legacy = Buffer.from(
        JSON.stringify({ receivedAt: Date.parse(twentieth.receivedAt), eventId: twentieth.id }),
      ).toString('base64url');
      const viaLegacy = await events(app, s.user.token, {
        ...base,
        limit: 20,
        filters: { variant: 'on' },
        cursor: legacy,
      });
      assert.equal(viaLegacy.statusCode, 200, viaLegacy.body);
      assert.deepEqual(
        viaLegacy.json().events.map((e: any) => e.id),
        rest.map((e: any) => e.id),
      );
      assert.match(viaLegacy.json().nextCursor, /^ie1_/);
      assert.ok(!viaLegacy.body.includes(legacy));
      expectValidation(
        await events(app, s.user.token, { ...base, limit: 20, filters: { variant: 'on' }, cursor: legacy }),
        '/cursor',
      );
      expectValidation(
        await events(app, s.user.token, {
          ...base,
          limit: 20,
          filters: { variant: 'on' },
          cursor: viaLegacy.json().nextCursor.replace('ie1_', 'xx1_'),
        }),
        '/cursor',
      );

      // csv and ndjson carry the same events.
      const json = (await events(app, s.user.token, base)).json();
      const nd = await events(app, s.user.token, { ...base, format: 'ndjson' });
      assert.deepEqual(
        nd.body
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l)),
        json.events,
      );
      const csv = await events(app, s.user.token, { ...base, format: 'csv' });
      const lines = csv.body.trimEnd().split('\n');
      assert.equal(
        lines[0],
        'id,kind,timestamp,receivedAt,flagKey,variant,reason,experimentId,iterationId,iterationRevision,metricKey,metricValue,sourceAppId,sourceEnv',
      );
      assert.deepEqual(
        lines.slice(1).map((l) => l.split(',')[0]),
        json.events.map((e: any) => e.id),
      );
      assert.equal(csv.headers['x-insights-checkpoint'], json.checkpoint);

      // Nothing anywhere reveals a targeting key, an attribute or a served value.
      const secrets = ['subject-1', 'leak-', 'served-secret', 'example.com', 'targetingKey', 'attributes'];
      const answers = [
        first,
        second,
        viaLegacy,
        nd,
        csv,
        await query(app, s.user.token, {
          appId: s.appId,
          env: 'prod',
          from: iso(T0 - DAY),
          to: iso(T0),
          grain: 'hour',
          dimensions: ['flagKey', 'variant', 'kind'],
          measures: ['events', 'subjects'],
          format: 'csv',
        }),
      ];
      for (const res of answers)
        assertContainsNone(res.body + JSON.stringify(res.headers), secrets, res.headers['content-type'] as string);
    });
  });
}

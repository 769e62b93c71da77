// The raw events route: redacted events newest first, ie1_ pages, legacy cursors, formats, and no
// answer revealing a subject, an attribute or a served value.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { assertContainsNone, expectValidation } from '../../../../test/helpers/fixtures.js';
import { DAY, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { cohort, events, iso, query } from './insights.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

for (const dialect of dialects) {
  describe(`insights events on ${dialect}`, () => {
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

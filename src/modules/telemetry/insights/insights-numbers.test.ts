// Numbers read back from storage (issue 18): a non-finite value stored before ingestion refused it
// never makes an insights answer fail, never spreads into a bucket that later batches touch, and the
// approximate subject count never exceeds the events it counts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError } from '../../../../test/helpers/fixtures.js';
import { eventId, exposure, sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

const query = (app: FastifyInstance, token: string, body: Record<string, unknown>) =>
  call(app, 'POST', '/api/v1/insights/query', { token, payload: body });

for (const dialect of dialects) {
  describe(`numbers read back by insights on ${dialect}`, () => {
    test('a bucket holding a non-finite sum: queries answer null for its metric measures, batches touching it fail alone', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const at = T0 - HOUR + 60_000;
      const outcome = (subject: string, value: number) => ({
        id: eventId('o'),
        kind: 'outcome',
        timestamp: iso(at),
        targetingKey: subject,
        flagKey: 'shown',
        variant: 'on',
        metricKey: 'revenue',
        metricValue: value,
      });
      const sent = await sendBatch(
        app,
        s.sdkProd,
        Array.from({ length: 30 }, (_, i) => outcome(`subject-${i}`, i)),
      );
      assert.equal(sent.json().accepted, 30, sent.body);
      // What the old ingestion could leave behind: Infinity in the bucket's sums and in a raw event.
      const db = database.handle.db;
      await db
        .updateTable('telemetry_rollups')
        .set({ metric_sum: Infinity, metric_sum_sq: Infinity })
        .where('metric_key', '=', 'revenue')
        .execute();
      await db
        .updateTable('telemetry_events')
        .set({ metric_value: -Infinity })
        .where('metric_key', '=', 'revenue')
        .where('targeting_key', '=', 'subject-3')
        .execute();

      const body = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - 2 * HOUR),
        to: iso(T0),
        grain: 'hour',
        dimensions: ['metricKey'],
        measures: ['events', 'subjects', 'metricSum', 'metricMean'],
      };
      for (const format of ['json', 'csv', 'ndjson']) {
        const res = await query(app, s.user.token, { ...body, format });
        assert.equal(res.statusCode, 200, `${format}: ${res.body}`);
        assert.doesNotMatch(res.body, /Infinity|NaN/);
      }
      const rows = (await query(app, s.user.token, body)).json().rows;
      assert.deepEqual(
        rows.map((r: any) => r.measures),
        [{ events: 30, subjects: 30, metricSum: null, metricMean: null }],
      );
      const listed = await call(app, 'POST', '/api/v1/insights/events', {
        token: s.user.token,
        payload: { appId: s.appId, env: 'prod', from: iso(T0 - 2 * HOUR), to: iso(T0), kinds: ['outcome'], limit: 100 },
      });
      assert.equal(listed.statusCode, 200, listed.body);
      const values = listed.json().events.map((e: any) => e.metricValue);
      assert.equal(values.length, 30);
      assert.equal(values.filter((v: unknown) => v === null).length, 1, 'the stored -Infinity is answered null');

      // A batch adding to that bucket cannot be stored (its sum would not be finite): it fails alone,
      // and nothing new is written to the bucket; another bucket of the same environment is fine.
      const poisoned = await sendBatch(app, s.sdkProd, [outcome('subject-99', 5)]);
      expectError(poisoned, 503, 'service_unavailable');
      const elsewhere = await sendBatch(app, s.sdkProd, [exposure(at, 'subject-99')]);
      assert.equal(elsewhere.statusCode, 200, elsewhere.body);
      assert.equal(elsewhere.json().accepted, 1);
    });

    test('the approximate subject count never exceeds the events of its cell', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      // 100 distinct subjects whose sketch estimates 101 (no two share a register): one event each.
      const at = T0 - HOUR + 60_000;
      const res = await sendBatch(
        app,
        s.sdkProd,
        Array.from({ length: 100 }, (_, i) => exposure(at, `s1-${i}`)),
      );
      assert.equal(res.json().accepted, 100, res.body);
      const answer = await query(app, s.user.token, {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - 2 * HOUR),
        to: iso(T0),
        grain: 'hour',
        measures: ['events', 'subjects'],
      });
      assert.equal(answer.statusCode, 200, answer.body);
      assert.deepEqual(
        answer.json().rows.map((r: any) => r.measures),
        [{ events: 100, subjects: 100 }],
      );
    });
  });
}

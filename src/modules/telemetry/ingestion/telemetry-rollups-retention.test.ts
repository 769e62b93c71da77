// What a stored batch leaves behind: hourly rollups, the watermark, and their purge by retention.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects, testDatabase } from '../../../../test/helpers/test-app.js';
import { purgeExpiredTelemetry } from './index.js';
import { validateItem } from './event-validation.js';
import { storeBatches } from './event-store.repository.js';
import type { ValidEvent } from './telemetry.model.js';
import { SubjectSketch } from './subject-sketch.js';
import { DAY, exposure, eventId, sendBatch, T0, telemetryApp } from './telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

for (const dialect of dialects) {
  describe(`telemetry rollups and retention on ${dialect}`, () => {
    test("a group touching 3,200 buckets is stored (rollups written in statements of 100 rows, under SQLite's parameter limit)", async (t) => {
      const database = await testDatabase(t, dialect);
      const inputs = Array.from({ length: 32 }, (_, b) => ({
        envId: 'env_wide',
        appId: 'app_wide',
        receivedAt: T0,
        events: Array.from(
          { length: 100 },
          (_, i) => validateItem(exposure(T0, `u-${i}`, { flagKey: `flag-${b}-${i}` }), i, T0) as ValidEvent,
        ),
      }));
      const outcomes = await storeBatches(database.handle.db, inputs);
      assert.ok(outcomes.every((batch) => batch.length === 100 && batch.every((o) => o === 'accepted')));
      const rollups = await database.handle.db
        .selectFrom('telemetry_rollups')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('env_id', '=', 'env_wide')
        .executeTakeFirstOrThrow();
      assert.equal(Number(rollups.n), 3200);
      // The same buckets again: every row is read, merged and written back.
      const again = inputs.map((input) => ({
        ...input,
        events: input.events.map((v) => ({ ...v, event: { ...v.event, id: `${v.event.id}-2` } })),
      }));
      await storeBatches(database.handle.db, again);
      const events = await database.handle.db
        .selectFrom('telemetry_rollups')
        .select((eb) => eb.fn.sum<number>('events').as('n'))
        .where('env_id', '=', 'env_wide')
        .executeTakeFirstOrThrow();
      assert.equal(Number(events.n), 6400);
    });

    test('rollups follow the event hour in UTC with counts, sums and subjects; the watermark names the newest event', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const hour = Math.floor(T0 / 3_600_000) * 3_600_000;
      const outcome = (at: number, subject: string, value: number) => ({
        id: eventId('o'),
        kind: 'outcome',
        timestamp: new Date(at).toISOString(),
        targetingKey: subject,
        metricKey: 'revenue',
        metricValue: value,
      });
      const items = [
        exposure(hour - 1, 'a'),
        exposure(hour, 'a'),
        exposure(hour + 10, 'a'),
        exposure(hour + 20, 'b'),
        outcome(hour + 5, 'a', 2),
        outcome(hour + 6, 'b', 3),
        { ...outcome(hour + 7, 'c', 0), metricValue: undefined },
      ];
      const res = await sendBatch(app, s.sdkProd, items);
      assert.equal(res.json().accepted, 7);
      const rows = await database.handle.db
        .selectFrom('telemetry_rollups')
        .selectAll()
        .orderBy('bucket_start')
        .orderBy('kind')
        .execute();
      assert.deepEqual(
        rows.map((r) => [
          Number(r.bucket_start) - hour,
          r.kind,
          r.flag_key,
          r.variant,
          r.metric_key,
          Number(r.events),
          Number(r.metric_count),
          Number(r.metric_sum),
          Number(r.metric_sum_sq),
          Math.round(SubjectSketch.decode(r.subjects).estimate()),
        ]),
        [
          [-3_600_000, 'exposure', 'shown', 'on', '', 1, 0, 0, 0, 1],
          [0, 'exposure', 'shown', 'on', '', 3, 0, 0, 0, 2],
          [0, 'outcome', '', '', 'revenue', 3, 3, 6, 14, 3],
        ],
      );
      // A second batch merges into the same buckets (one upsert per bucket).
      await sendBatch(app, s.sdkProd, [exposure(hour + 30, 'c'), exposure(hour + 31, 'a')]);
      const merged = await database.handle.db
        .selectFrom('telemetry_rollups')
        .selectAll()
        .where('bucket_start', '=', hour)
        .where('kind', '=', 'exposure')
        .executeTakeFirstOrThrow();
      assert.equal(Number(merged.events), 5);
      assert.equal(Math.round(SubjectSketch.decode(merged.subjects).estimate()), 3);
      const watermark = await database.handle.db
        .selectFrom('telemetry_watermarks')
        .selectAll()
        .executeTakeFirstOrThrow();
      assert.equal(Number(watermark.received_at), T0);
      assert.equal(typeof watermark.event_id, 'string');
    });

    test('retention purges raw events after 30 days and rollups after 90', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const db = database.handle.db;
      await sendBatch(app, s.sdkProd, [
        exposure(T0 - 29 * DAY, 'old'),
        exposure(T0 - DAY, 'recent'),
        exposure(T0, 'now'),
      ]);
      const count = async (table: 'telemetry_events' | 'telemetry_event_keys' | 'telemetry_rollups') =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal(await count('telemetry_events'), 3);
      const first = await purgeExpiredTelemetry(db, T0 + 2 * DAY);
      assert.equal(await count('telemetry_events'), 2);
      if (dialect === 'postgres') assert.equal(await count('telemetry_event_keys'), 2);
      assert.equal(await count('telemetry_rollups'), 3);
      if (dialect === 'postgres') assert.equal(first.droppedPartitions, 1);
      else assert.equal(first.deletedEvents, 1);
      await purgeExpiredTelemetry(db, T0 + 40 * DAY);
      assert.equal(await count('telemetry_events'), 0);
      assert.equal(await count('telemetry_rollups'), 3);
      await purgeExpiredTelemetry(db, T0 + 91 * DAY);
      assert.equal(await count('telemetry_rollups'), 0);
    });
  });
}

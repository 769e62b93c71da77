import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { buildTestApp, createTestDatabase, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { purgeExpiredTelemetry } from './index.js';
import { validateItem } from './event-validation.js';
import { storeBatches } from './event-store.repository.js';
import type { ValidEvent } from './telemetry.model.js';
import { estimateUnion, SubjectSketch } from './subject-sketch.js';
import { exposure, eventId, refuseEventsOf, sendBatch, T0, telemetryApp } from './telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

test('the subject sketch stays within 2 % at sizes from one subject to 100,000, merges and round-trips', () => {
  for (const n of [1, 19, 20, 500, 5_000, 100_000]) {
    const a = new SubjectSketch();
    const b = new SubjectSketch();
    for (let i = 0; i < n; i++) (i % 2 ? a : b).add(`user-${n}-${i}`);
    const merged = SubjectSketch.decode(a.encode());
    merged.mergeBytes(b.encode());
    const error = Math.abs(merged.estimate() - n) / n;
    assert.ok(error <= (n < 5_000 ? 0.02 : 0.03), `n=${n} estimate=${merged.estimate()}`);
    if (n <= 20) assert.equal(Math.round(merged.estimate()), n);
  }
  assert.equal(new SubjectSketch().estimate(), 0);
});

/** The HyperLogLog estimate from a walk over every register of an encoded sketch (the reference
 * for the running sum a dense sketch keeps). */
function estimateByWalk(bytes: Uint8Array): number {
  const m = 4096;
  const registers = new Uint8Array(m);
  if (bytes[0] === 2) registers.set(bytes.subarray(1));
  else
    for (let o = 1; o < bytes.length; o += 3)
      registers[(bytes[o]! << 8) | bytes[o + 1]!] = Math.max(
        registers[(bytes[o]! << 8) | bytes[o + 1]!]!,
        bytes[o + 2]!,
      );
  let sum = 0;
  let zeros = 0;
  for (const r of registers) {
    sum += 2 ** -r;
    if (r === 0) zeros++;
  }
  const raw = ((0.7213 / (1 + 1.079 / m)) * m * m) / sum;
  return raw <= 2.5 * m && zeros > 0 ? m * Math.log(m / zeros) : raw;
}

test('a dense sketch estimates exactly what a walk over its registers gives, however it was built', () => {
  for (const n of [0, 1, 1_500, 3_000, 20_000, 300_000]) {
    const parts = [new SubjectSketch(), new SubjectSketch(), new SubjectSketch()];
    for (let i = 0; i < n; i++) parts[i % 3]!.add(`subject-${n}-${i}`);
    const merged = SubjectSketch.forMerging();
    merged.merge(parts[0]!);
    merged.mergeBytes(parts[1]!.encode());
    merged.mergeBytes(SubjectSketch.decode(parts[2]!.encode()).encode());
    merged.merge(parts[0]!); // merging the same registers again changes nothing
    assert.equal(merged.estimate(), estimateByWalk(merged.encode()), `n=${n}`);
  }
});

test('merging into a stored sketch encodes what decoding, merging and encoding again give', () => {
  const sketchOf = (prefix: string, n: number) => {
    const sketch = new SubjectSketch();
    for (let i = 0; i < n; i++) sketch.add(`${prefix}-${i}`);
    return sketch;
  };
  // Sparse and dense on either side, overlapping subjects, and a union that crosses into dense.
  for (const [stored, added] of [
    [0, 1],
    [1, 1],
    [40, 3],
    [1_300, 80],
    [1_000, 1_000],
    [5_000, 2],
    [3, 5_000],
    [5_000, 5_000],
  ] as const) {
    const storedBytes = sketchOf('s', stored).encode();
    const delta = sketchOf(stored % 2 ? 's' : 'd', added);
    const expected = SubjectSketch.decode(delta.encode());
    expected.mergeBytes(storedBytes);
    assert.deepEqual(delta.encodeMergedWith(storedBytes), expected.encode(), `stored=${stored} added=${added}`);
  }
  assert.throws(() => new SubjectSketch().encodeMergedWith(Buffer.from([1, 0])), /not a subject sketch/);
});

test('the union estimate of stored sketches is what merging them into one sketch gives, call after call', () => {
  const encodings = [0, 1, 40, 1_500, 6_000].map((n, k) => {
    const sketch = new SubjectSketch();
    for (let i = 0; i < n; i++) sketch.add(`u-${k % 2}-${i}`);
    return sketch.encode();
  });
  for (const subset of [[], [encodings[1]!], encodings.slice(0, 3), encodings, [encodings[4]!, encodings[4]!]]) {
    const merged = SubjectSketch.forMerging();
    for (const bytes of subset) merged.mergeBytes(bytes);
    assert.equal(estimateUnion(subset), merged.estimate());
    assert.equal(estimateUnion(subset), merged.estimate(), 'the shared registers are cleared after each call');
  }
  assert.throws(() => estimateUnion([encodings[3]!, Buffer.from([9])]), /not a subject sketch/);
  assert.equal(Math.round(estimateUnion([encodings[1]!])), 1, 'and after a failed call');
});

for (const dialect of dialects) {
  describe(`telemetry ingestion on ${dialect}`, () => {
    test('every per-item status, in request order, and duplicates on retry', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const ok = exposure(T0 - MINUTE, 'user-1');
      const outcome = {
        id: eventId('o'),
        kind: 'outcome',
        timestamp: new Date(T0).toISOString(),
        targetingKey: 'user-1',
        metricKey: 'revenue',
      };
      const decision = {
        id: eventId('d'),
        kind: 'decision',
        timestamp: new Date(T0).toISOString(),
        flagKey: 'hidden',
        reason: 'DEFAULT',
      };
      const items: unknown[] = [
        ok,
        { ...exposure(T0, 'user-2'), color: 'red' },
        { id: eventId(), kind: 'exposure', timestamp: new Date(T0).toISOString(), flagKey: 'shown' },
        exposure(T0 + 6 * MINUTE, 'user-3'),
        exposure(T0 - 31 * DAY, 'user-3'),
        'not an event',
        outcome,
        decision,
        { id: eventId(), kind: 'exposure', timestamp: 'yesterday', targetingKey: 'u', flagKey: 'shown' },
        { id: eventId(), kind: 'outcome', timestamp: new Date(T0).toISOString(), targetingKey: 'u' },
        { ...exposure(T0, 'user-4'), value: 'x'.repeat(1100) },
        { ...exposure(T0, 'user-4'), attributes: { a: 'x'.repeat(2100) } },
      ];
      const res = await sendBatch(app, s.sdkProd, items);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(
        body.results.map((r: any) => [r.index, r.status, r.code ?? null]),
        [
          [0, 'accepted', null],
          [1, 'permanent-error', 'validation_error'],
          [2, 'permanent-error', 'validation_error'],
          [3, 'permanent-error', 'timestamp_out_of_range'],
          [4, 'permanent-error', 'timestamp_out_of_range'],
          [5, 'permanent-error', 'validation_error'],
          [6, 'accepted', null],
          [7, 'accepted', null],
          [8, 'permanent-error', 'validation_error'],
          [9, 'permanent-error', 'validation_error'],
          [10, 'permanent-error', 'validation_error'],
          [11, 'permanent-error', 'validation_error'],
        ],
      );
      assert.equal(body.results[0].id, ok.id);
      assert.equal(body.results[5].id, null);
      assert.match(body.results[1].message, /color/);
      assert.match(body.results[2].message, /targetingKey/);
      assert.deepEqual([body.accepted, body.duplicates, body.rejected], [3, 0, 9]);

      // A retry with the same ids: duplicates; the same id with other content: a conflict.
      const retry = await sendBatch(app, s.sdkProd, [
        ok,
        { ...outcome, metricValue: 1 },
        { ...ok, variant: 'off' },
        exposure(T0, 'user-5'),
      ]);
      assert.equal(retry.statusCode, 200, retry.body);
      assert.deepEqual(
        retry.json().results.map((r: any) => [r.status, r.code ?? null]),
        [
          ['duplicate', null],
          ['duplicate', null],
          ['permanent-error', 'event_id_conflict'],
          ['accepted', null],
        ],
      );
      assert.deepEqual([retry.json().accepted, retry.json().duplicates, retry.json().rejected], [1, 2, 1]);

      // Another environment may use the same id.
      assert.equal((await sendBatch(app, s.sdk.dev!, [ok])).json().results[0].status, 'accepted');
      const stored = await database.handle.db
        .selectFrom('telemetry_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.n), 5);
    });

    test('numbers at the edge of their type, prototype keys and U+0000 are per-item permanent errors naming the field; the rest is stored', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const outcome = (fields: string) =>
        `{"id":"${eventId('o')}","kind":"outcome","timestamp":"${new Date(T0).toISOString()}","targetingKey":"u","metricKey":"revenue"${fields}}`;
      const items = [
        outcome(',"metricValue":1e400'),
        outcome(',"metricValue":-1e400'),
        outcome(',"metricValue":1.7e308'),
        outcome(',"metricValue":-1000000000000001'),
        outcome(',"metricValue":1e15'),
        outcome(',"value":{"a":[1e999]}'),
        outcome(',"attributes":{"plan":"x","__proto__":{"admin":true}}'),
        outcome(',"attributes":{"constructor":{"prototype":{}}}'),
        outcome(',"iterationRevision":2147483648'),
        outcome(',"iterationRevision":1e400'),
        outcome(',"variant":"on\\u0000"'),
        outcome(',"attributes":{"plan\\u0000":"x"}'),
        outcome(',"metricValue":-2.5'),
      ];
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/events/batch',
        headers: { authorization: `Bearer ${s.sdkProd}`, 'content-type': 'application/json' },
        payload: `{"schemaVersion":1,"events":[${items.join(',')}]}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(
        body.results.map((r: any) => [r.status, r.message ?? null]),
        [
          ['permanent-error', '/metricValue is not a finite number.'],
          ['permanent-error', '/metricValue is not a finite number.'],
          ['permanent-error', '/metricValue must be <= 1000000000000000.'],
          ['permanent-error', '/metricValue must be >= -1000000000000000.'],
          ['accepted', null],
          ['permanent-error', '/value/a/0 is not a finite number.'],
          ['permanent-error', '/attributes/__proto__ is the key "__proto__", which is refused.'],
          ['permanent-error', '/attributes/constructor/prototype is the key "constructor", which is refused.'],
          ['permanent-error', '/iterationRevision must be <= 2147483647.'],
          ['permanent-error', '/iterationRevision is not a finite number.'],
          ['permanent-error', '/variant contains the character U+0000, which text cannot hold.'],
          ['permanent-error', '/attributes/plan\u0000 contains the character U+0000, which text cannot hold.'],
          ['accepted', null],
        ],
      );
      assert.ok(body.results.every((r: any) => r.status === 'accepted' || r.code === 'validation_error'));
      assert.ok(
        body.results.every(
          (r: any, i: number) =>
            r.id === JSON.parse(items[i]!.replace(/1e[49]\d\d/g, '0').replace('"__proto__"', '"p"')).id,
        ),
      );
      const rollup = await database.handle.db
        .selectFrom('telemetry_rollups')
        .selectAll()
        .where('kind', '=', 'outcome')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [Number(rollup.events), Number(rollup.metric_count), Number(rollup.metric_sum)],
        [2, 2, 1e15 - 2.5],
      );
      // Outside the events, the same values are the batch's 400.
      const envelope = await app.inject({
        method: 'POST',
        url: '/api/v1/events/batch',
        headers: { authorization: `Bearer ${s.sdkProd}`, 'content-type': 'application/json' },
        payload: `{"schemaVersion":1,"events":[${outcome('')}],"sdk":{"name":"js","version":"1","x":1e400}}`,
      });
      expectValidation(envelope, '/sdk/x');
    });

    test('a pub_ key may report only client-visible flags; an sdk_ key any flag', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const items = [
        exposure(T0, 'u1'),
        exposure(T0, 'u1', { flagKey: 'hidden' }),
        exposure(T0, 'u1', { flagKey: 'missing' }),
        { ...exposure(T0, 'u2'), kind: 'outcome', flagKey: undefined, metricKey: 'clicks' },
      ];
      const res = await sendBatch(app, s.pub, items);
      assert.deepEqual(
        res.json().results.map((r: any) => [r.status, r.code ?? null]),
        [
          ['accepted', null],
          ['permanent-error', 'flag_not_visible'],
          ['permanent-error', 'flag_not_visible'],
          ['accepted', null],
        ],
      );
      const server = await sendBatch(app, s.sdkProd, [exposure(T0, 'u1', { flagKey: 'hidden' })]);
      assert.equal(server.json().results[0].status, 'accepted');
    });

    test('bad envelopes are 400, a body over 1 MiB 413, management credentials 401', async (t) => {
      const { app } = await buildTestApp(t, { dialect, now: testClock().now });
      const s = await telemetryApp(app);
      const one = [exposure(T0, 'u')];
      expectValidation(await sendBatch(app, s.sdkProd, one, { schemaVersion: 2 }), '/schemaVersion');
      expectValidation(await sendBatch(app, s.sdkProd, one, { extra: true }), '/extra');
      expectValidation(await sendBatch(app, s.sdkProd, []), '/events');
      expectValidation(
        await sendBatch(
          app,
          s.sdkProd,
          Array.from({ length: 101 }, () => exposure(T0, 'u')),
        ),
        '/events',
      );
      expectValidation(
        await call(app, 'POST', '/api/v1/events/batch', {
          token: s.sdkProd,
          payload: { schemaVersion: 1, events: { 0: 'a' } },
        }),
        '/events',
      );
      expectValidation(await sendBatch(app, s.sdkProd, one, { sdk: { name: 'js' } }), '/sdk/version');
      const huge = await sendBatch(app, s.sdkProd, [{ ...exposure(T0, 'u'), value: 'x'.repeat(1024 * 1024) }]);
      expectError(huge, 413, 'payload_too_large');
      expectError(await sendBatch(app, s.admin, one), 401, 'unauthorized');
      expectError(await sendBatch(app, s.user.token, one), 401, 'unauthorized');
      expectError(await sendBatch(app, 'sdk_nope', one), 401, 'unauthorized');
    });

    test('over the environment rate: 429 with Retry-After and the full ordered list, admitted items stored', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, {
        dialect,
        now: clock.now,
        config: { telemetryEventsPerSecond: 5 },
      });
      const s = await telemetryApp(app);
      const items = [{ bad: true }, ...Array.from({ length: 8 }, (_, i) => exposure(T0, `u${i}`))];
      const res = await sendBatch(app, s.sdkProd, items);
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.headers['retry-after'], '1');
      const body = res.json();
      assert.equal(body.results.length, 9);
      assert.deepEqual(
        body.results.map((r: any) => r.status),
        [
          'permanent-error',
          'accepted',
          'accepted',
          'accepted',
          'accepted',
          'accepted',
          'retryable-error',
          'retryable-error',
          'retryable-error',
        ],
      );
      for (const r of body.results.slice(6)) {
        assert.equal(r.code, 'rate_limited');
        assert.equal(r.retryAfterSeconds, 1);
      }
      assert.deepEqual([body.accepted, body.duplicates, body.rejected], [5, 0, 4]);
      // Another environment has its own bucket.
      assert.equal((await sendBatch(app, s.sdk.dev!, [exposure(T0, 'u')])).statusCode, 200);
      clock.advance(1000);
      // Clients retry only the retryable items, with the same ids.
      const again = await sendBatch(app, s.sdkProd, items.slice(6));
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(
        again.json().results.map((r: any) => r.status),
        ['accepted', 'accepted', 'accepted'],
      );
      const n = await database.handle.db
        .selectFrom('telemetry_events')
        .where('env_id', '!=', '')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(n.n), 9);
    });

    test('storage failure: 503 service_unavailable, retryable, nothing stored', async (t) => {
      const clock = testClock();
      const { app, database, logs } = await buildTestApp(t, { dialect, now: clock.now, captureLogs: true });
      const s = await telemetryApp(app);
      const db = database.handle.db;
      await sql`DROP TABLE telemetry_watermarks`.execute(db);
      const res = await sendBatch(app, s.sdkProd, [exposure(T0, 'u1'), exposure(T0, 'u2')]);
      const error = expectError(res, 503, 'service_unavailable');
      assert.equal(res.headers['retry-after'], '1');
      assert.doesNotMatch(JSON.stringify(error), /telemetry_|select|insert/i);
      // The operator's log says why: the storage error travels as the 503's cause.
      assert.match(logs(), /telemetry_watermarks/);
      const n = await db
        .selectFrom('telemetry_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(n.n), 0);
      // PostgreSQL keeps dedup keys apart from the events (decision 0047): none of them either.
      if (dialect === 'postgres') {
        const keys = await db
          .selectFrom('telemetry_event_keys')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(keys.n), 0);
      }
    });

    test('a batch the database refuses fails alone: batches of other apps and environments sent with it are accepted and stored', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const other = await telemetryApp(app);
      const db = database.handle.db;
      const poisoned = await db
        .selectFrom('environments')
        .select('id')
        .where('app_id', '=', s.appId)
        .where('slug', '=', 'dev')
        .executeTakeFirstOrThrow();
      await refuseEventsOf(db, dialect, poisoned.id);
      // Sent together, so that they share group transactions as far as the server's timing allows;
      // the answers do not depend on how they were grouped.
      const senders = [s.sdk.dev!, s.sdkProd, s.sdk.staging!, other.sdkProd, other.sdk.dev!, s.pub];
      const rounds = await Promise.all(
        Array.from({ length: 3 }, () =>
          Promise.all(senders.map((token, i) => sendBatch(app, token, [exposure(T0, `u${i}`), exposure(T0, `v${i}`)]))),
        ),
      );
      for (const answers of rounds) {
        expectError(answers[0]!, 503, 'service_unavailable');
        for (const res of answers.slice(1)) {
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.json().accepted, 2);
        }
      }
      const stored = await db
        .selectFrom('telemetry_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.n), 3 * 5 * 2);
      const refused = await db
        .selectFrom(dialect === 'postgres' ? 'telemetry_event_keys' : 'telemetry_events')
        .select('id')
        .where('env_id', '=', poisoned.id)
        .execute();
      assert.deepEqual(refused, []);
    });

    test("a group touching 3,200 buckets is stored (rollups written in statements of 100 rows, under SQLite's parameter limit)", async (t) => {
      const database = await createTestDatabase(dialect);
      t.after(async () => {
        await database.handle.close();
        await database.drop();
      });
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

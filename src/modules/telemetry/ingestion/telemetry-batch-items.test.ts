// What POST /api/v1/events/batch answers for each event of a batch, and for the batch itself.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { DAY, exposure, eventId, MINUTE, sendBatch, T0, telemetryApp } from './telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

for (const dialect of dialects) {
  describe(`telemetry batch items on ${dialect}`, () => {
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

    test('an unpaired surrogate in a stored text field is a per-item error; paired ones and JSON fields come back as sent', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const at = new Date(T0).toISOString();
      const item = (id: string, fields = '', subject = 'u') =>
        `{"id":"${id}","kind":"exposure","timestamp":"${at}","targetingKey":"${subject}","flagKey":"f","variant":"on"${fields}}`;
      const items = [
        item('lone-\\ud800'),
        item(eventId('s'), '', 'x\\udc00'),
        item(eventId('s'), ',"attributes":{"k":"y\\ud800"}'),
        item('paired-\\ud83d\\ude00'),
      ];
      const send = () =>
        app.inject({
          method: 'POST',
          url: '/api/v1/events/batch',
          headers: { authorization: `Bearer ${s.sdkProd}`, 'content-type': 'application/json' },
          payload: `{"schemaVersion":1,"events":[${items.join(',')}]}`,
        });
      const first = await send();
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(
        first.json().results.map((r: any) => [r.status, r.message ?? null]),
        [
          ['permanent-error', '/id contains an unpaired UTF-16 surrogate, which text cannot hold.'],
          ['permanent-error', '/targetingKey contains an unpaired UTF-16 surrogate, which text cannot hold.'],
          ['accepted', null],
          ['accepted', null],
        ],
      );
      // Stored under the ids sent: the same batch again is duplicates, not conflicts.
      const again = await send();
      assert.deepEqual(
        again.json().results.map((r: any) => r.status),
        ['permanent-error', 'permanent-error', 'duplicate', 'duplicate'],
      );
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

    test('bad envelopes are 400 (nothing coerced), a body over 1 MiB 413, management credentials 401', async (t) => {
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
      // Strict like every body: nothing is coerced (a string for a number, a number for a string).
      expectValidation(await sendBatch(app, s.sdkProd, one, { schemaVersion: '1' }), '/schemaVersion');
      expectValidation(await sendBatch(app, s.sdkProd, one, { sdk: { name: 1, version: '1' } }), '/sdk/name');
      const huge = await sendBatch(app, s.sdkProd, [{ ...exposure(T0, 'u'), value: 'x'.repeat(1024 * 1024) }]);
      expectError(huge, 413, 'payload_too_large');
      expectError(await sendBatch(app, s.admin, one), 401, 'unauthorized');
      expectError(await sendBatch(app, s.user.token, one), 401, 'unauthorized');
      expectError(await sendBatch(app, 'sdk_nope', one), 401, 'unauthorized');
    });
  });
}

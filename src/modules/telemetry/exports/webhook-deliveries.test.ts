// Deliveries end to end: a real HTTPS receiver on port 443 of a loopback address, pinned with the
// resolve setting and trusted through the CA setting, exactly as an operator would configure it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError } from '../../../../test/helpers/fixtures.js';
import { exposure, sendBatch } from '../ingestion/telemetry.fixtures.js';
import { retryDelay } from './webhook-delivery-worker.js';
import { exportSetup as setup, HOST } from './exports.fixtures.js';

for (const dialect of dialects) {
  describe(`modules/exports deliveries on ${dialect}`, () => {
    test('accepted events arrive signed (standardwebhooks verifies), batched, with the canonical body', async (t) => {
      const { app, s, env, clock, rx, destination, signingSecret, pump, deliveries } = await setup(t, dialect);
      const events = [
        exposure(clock.now() - 1000, 'alice'),
        exposure(clock.now() - 900, 'bob'),
        exposure(clock.now() - 800, 'carol'),
      ];
      assert.equal((await sendBatch(app, s.sdkProd, events)).statusCode, 200);
      await pump();
      assert.equal(rx.received.length, 2, 'three events in batches of two');
      const ids = new Set<string>();
      for (const r of rx.received) {
        const payload = new Webhook(signingSecret).verify(r.body, r.headers) as any;
        assert.equal(payload.type, 'telemetry.events.v1');
        assert.equal(payload.deliveryId, r.headers['webhook-id']);
        assert.deepEqual([payload.destinationId, payload.appId, payload.env], [destination.id, env.appId, 'prod']);
        for (const e of payload.events) {
          ids.add(e.id);
          assert.ok(e.receivedAt && e.timestamp && e.kind === 'exposure');
        }
        assert.equal(r.headers.host, HOST);
      }
      assert.deepEqual([...ids].sort(), events.map((e) => e.id).sort());
      const list = await deliveries();
      assert.deepEqual(
        list.map((d: any) => [d.status, d.attempts]),
        [
          ['delivered', 1],
          ['delivered', 1],
        ],
      );
      const health = (
        await call(app, 'GET', `/api/v1/telemetry/exports/${destination.id}?${new URLSearchParams(env)}`, {
          token: s.admin,
        })
      ).json().health;
      assert.equal(health.consecutiveFailures, 0);
      assert.equal(health.backlog, 0);
      assert.ok(health.lastSuccessAt);
      // Nothing new: nothing more is sent.
      await pump();
      assert.equal(rx.received.length, 2);
    });

    test('a failing receiver sees retries with the same webhook-id; a 4xx fails at once; retry re-sends', async (t) => {
      let answer = 503;
      const { app, s, env, clock, rx, destination, pump, deliveries } = await setup(t, dialect, () => answer);
      await sendBatch(app, s.sdkProd, [exposure(clock.now() - 1000, 'alice')]);
      await pump();
      assert.equal(rx.received.length, 1);
      let [d] = await deliveries();
      assert.deepEqual([d.status, d.attempts, d.lastError.status, d.lastError.code], ['pending', 1, 503, 'http_error']);
      const wait = Date.parse(d.nextAttemptAt) - clock.now();
      assert.ok(wait >= 24_000 && wait <= 36_000, `first retry after about 30 s, got ${wait}`);
      await pump(1_000);
      assert.equal(rx.received.length, 1, 'not before its time');
      await pump(40_000);
      assert.equal(rx.received.length, 2);
      assert.equal(rx.received[1]!.headers['webhook-id'], rx.received[0]!.headers['webhook-id']);
      answer = 400;
      await pump(120_000);
      [d] = await deliveries();
      assert.deepEqual([d.status, d.attempts, d.nextAttemptAt], ['failed', 3, null]);
      const health = (
        await call(app, 'GET', `/api/v1/telemetry/exports/${destination.id}?${new URLSearchParams(env)}`, {
          token: s.admin,
        })
      ).json().health;
      assert.equal(health.consecutiveFailures, 3);
      assert.equal(health.lastError.status, 400);

      answer = 200;
      const retry = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/deliveries/${d.id}/retry`, {
        token: s.admin,
        payload: env,
      });
      assert.equal(retry.statusCode, 202, retry.body);
      assert.equal(retry.json().delivery.status, 'pending');
      await pump();
      assert.equal(rx.received.length, 4);
      assert.equal(rx.received[3]!.headers['webhook-id'], d.id);
      [d] = await deliveries({ status: 'delivered' });
      assert.equal(d.attempts, 1);
      const again = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/deliveries/${d.id}/retry`, {
        token: s.admin,
        payload: env,
      });
      assert.equal(again.statusCode, 202);
      expectError(
        await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/deliveries/${d.id}/retry`, {
          token: s.admin,
          payload: env,
        }),
        409,
        'delivery_not_retryable',
      );
      expectError(
        await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/deliveries/dlv_missing/retry`, {
          token: s.admin,
          payload: env,
        }),
        404,
        'not_found',
      );
    });

    test('paused destinations wait; 24 hours of failures disable a destination; active again resumes it', async (t) => {
      let answer = 500;
      const { app, s, env, clock, rx, destination, pump, deliveries } = await setup(t, dialect, () => answer);
      const patch = (version: number, status: string) =>
        call(app, 'PATCH', `/api/v1/telemetry/exports/${destination.id}`, {
          token: s.admin,
          payload: { ...env, version, status },
        });
      assert.equal((await patch(1, 'paused')).statusCode, 200);
      await sendBatch(app, s.sdkProd, [exposure(clock.now() - 1000, 'alice')]);
      await pump();
      assert.equal(rx.received.length, 0, 'nothing is cut or sent while paused');
      assert.equal((await patch(2, 'active')).statusCode, 200);
      // Set active, the destination's backlog is read at once, not at the end of the schedule's period:
      // no time passes here, and the events still go out.
      await pump(0);
      assert.equal(rx.received.length, 1);
      clock.advance(24 * 3_600_000);
      await pump();
      assert.equal(rx.received.length, 2);
      const got = (
        await call(app, 'GET', `/api/v1/telemetry/exports/${destination.id}?${new URLSearchParams(env)}`, {
          token: s.admin,
        })
      ).json();
      assert.equal(got.destination.status, 'disabled');
      assert.equal(got.health.consecutiveFailures, 2);
      assert.equal(got.health.backlog, 1);
      const disabled = (
        await call(
          app,
          'GET',
          `/api/v1/changes?${new URLSearchParams({ appId: env.appId, operation: 'export.disable' })}`,
          { token: s.admin },
        )
      ).json().changes;
      assert.deepEqual(
        disabled.map((e: any) => [e.resourceId, e.source, e.authority.type]),
        [[destination.id, 'system', 'system']],
      );
      await pump(3_600_000);
      assert.equal(rx.received.length, 2, 'a disabled destination sends nothing');
      answer = 200;
      assert.equal((await patch(got.destination.version, 'active')).statusCode, 200);
      await pump(3_600_000);
      assert.equal(rx.received.length, 3);
      assert.equal((await deliveries())[0].status, 'delivered');
    });

    test('a rotated secret: deliveries verify with the old and the new key for 24 hours', async (t) => {
      const { app, s, env, clock, rx, destination, signingSecret, pump } = await setup(t, dialect);
      const rotated = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/rotate-secret`, {
        token: s.admin,
        payload: { ...env, version: 1 },
      });
      const next = rotated.json().signingSecret;
      await sendBatch(app, s.sdkProd, [exposure(clock.now() - 1000, 'alice')]);
      await pump();
      const [r] = rx.received;
      assert.equal(r!.headers['webhook-signature'].split(' ').length, 2);
      new Webhook(signingSecret).verify(r!.body, r!.headers);
      new Webhook(next).verify(r!.body, r!.headers);
    });

    test('a private address without the opt-in: every attempt fails address_not_allowed and nothing is sent', async (t) => {
      const { app, s, clock, rx, pump, deliveries } = await setup(t, dialect, () => 200, {
        allowPrivateNetworks: false,
      });
      await sendBatch(app, s.sdkProd, [exposure(clock.now() - 1000, 'alice')]);
      await pump();
      await pump(60_000);
      assert.equal(rx.received.length, 0);
      const [d] = await deliveries();
      assert.equal(d.lastError.code, 'address_not_allowed');
      assert.equal(d.attempts, 2);
    });

    test('backfill re-sends the retained events of a window; windows past 30 days are 400', async (t) => {
      const { app, s, env, clock, rx, destination, pump } = await setup(t, dialect);
      const start = clock.now();
      await sendBatch(app, s.sdkProd, [
        exposure(clock.now() - 1000, 'alice'),
        exposure(clock.now() - 900, 'bob'),
        exposure(clock.now() - 800, 'carol'),
      ]);
      await pump();
      assert.equal(rx.received.length, 2);
      const body = { ...env, from: new Date(start - 60_000).toISOString(), idempotencyKey: 'backfill-key-0123456789' };
      const res = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/backfills`, {
        token: s.admin,
        payload: body,
      });
      assert.equal(res.statusCode, 202, res.body);
      const backfill = res.json().backfill;
      assert.match(backfill.id, /^bkf_/);
      assert.deepEqual(
        [backfill.status, backfill.deliveries, backfill.events, backfill.completedAt],
        ['queued', 0, 0, null],
      );
      const replay = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/backfills`, {
        token: s.admin,
        payload: body,
      });
      assert.equal(replay.json().backfill.id, backfill.id);
      expectError(
        await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/backfills`, {
          token: s.admin,
          payload: { ...body, from: new Date(start - 30_000).toISOString() },
        }),
        409,
        'idempotency_conflict',
      );
      await pump();
      assert.equal(rx.received.length, 4);
      const ids = rx.received
        .slice(2)
        .flatMap((r) => JSON.parse(r.body).events.map((e: any) => e.targetingKey))
        .sort();
      assert.deepEqual(ids, ['alice', 'bob', 'carol']);
      const read = await call(
        app,
        'GET',
        `/api/v1/telemetry/exports/${destination.id}/backfills/${backfill.id}?${new URLSearchParams(env)}`,
        { token: s.admin },
      );
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(
        [read.json().backfill.status, read.json().backfill.deliveries, read.json().backfill.events],
        ['completed', 2, 3],
      );
      assert.ok(read.json().backfill.completedAt);
      const listed = (
        await call(app, 'GET', `/api/v1/telemetry/exports/${destination.id}/backfills?${new URLSearchParams(env)}`, {
          token: s.admin,
        })
      ).json().backfills;
      assert.deepEqual(
        listed.map((b: any) => b.id),
        [backfill.id],
      );
      expectError(
        await call(
          app,
          'GET',
          `/api/v1/telemetry/exports/${destination.id}/backfills/bkf_missing?${new URLSearchParams(env)}`,
          { token: s.admin },
        ),
        404,
        'not_found',
      );
      assert.equal(
        (
          await call(app, 'GET', `/api/v1/telemetry/exports/${destination.id}/backfills?${new URLSearchParams(env)}`, {
            token: s.sdkProd,
          })
        ).statusCode,
        401,
      );
      const old = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/backfills`, {
        token: s.admin,
        payload: {
          ...body,
          from: new Date(start - 31 * 86_400_000).toISOString(),
          idempotencyKey: 'backfill-key-old-0123456',
        },
      });
      assert.equal(old.statusCode, 400);
      const short = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/backfills`, {
        token: s.admin,
        payload: { ...body, idempotencyKey: 'short' },
      });
      assert.equal(short.statusCode, 400);
    });
  });
}

test('retry delays grow from about 30 s to 6 h', () => {
  assert.ok(retryDelay(1, () => 0.5) === 30_000);
  assert.ok(retryDelay(2, () => 0.5) === 70_500);
  // The 11 waits between 12 attempts span about a day (jitter at its middle).
  let total = 0;
  for (let k = 1; k < 12; k++) total += retryDelay(k, () => 0.5);
  assert.ok(total > 22 * 3_600_000 && total < 26 * 3_600_000, `retries span ${total / 3_600_000} h`);
  assert.equal(
    retryDelay(11, () => 1),
    6 * 3_600_000,
  );
  assert.equal(
    retryDelay(20, () => 0),
    17_280_000,
  );
});

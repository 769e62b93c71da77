// Subject erasure end to end: after the job no insight, event page or pending export holds the
// subject, the receipt reveals nothing, and a late event for the subject is dropped (answered accepted).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, signUp } from '../../../../test/helpers/fixtures.js';
import { feedCaughtUp, HOST, receiver } from '../exports/exports.fixtures.js';
import { eventId, exposure, sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { purgeExpiredTelemetry } from '../ingestion/index.js';
import * as tombstoneMigration from '../../../db/migrations/0110-erasure-tombstones-30-days.js';
import { testClock } from '../../../../test/helpers/clock.js';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const AT = T0 - HOUR + 60_000;

function outcome(subject: string, value: number) {
  return {
    id: eventId('o'),
    kind: 'outcome',
    timestamp: iso(AT + 1000),
    targetingKey: subject,
    flagKey: 'shown',
    variant: 'on',
    metricKey: 'revenue',
    metricValue: value,
  };
}

async function measures(app: FastifyInstance, token: string, appId: string) {
  const res = await call(app, 'POST', '/api/v1/insights/query', {
    token,
    payload: {
      appId,
      env: 'prod',
      from: iso(T0 - 2 * HOUR),
      to: iso(T0),
      grain: 'hour',
      dimensions: ['kind'],
      measures: ['events', 'subjects', 'metricSum'],
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries(res.json().rows.map((r: any) => [r.dimensions.kind, r.measures]));
}

async function eventCount(app: FastifyInstance, token: string, appId: string) {
  let total = 0;
  let cursor: string | undefined;
  do {
    const res = await call(app, 'POST', '/api/v1/insights/events', {
      token,
      payload: {
        appId,
        env: 'prod',
        from: iso(T0 - 2 * HOUR),
        to: iso(T0 + HOUR),
        kinds: ['exposure', 'outcome'],
        limit: 100,
        ...(cursor ? { cursor } : {}),
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    total += res.json().events.length;
    cursor = res.json().nextCursor ?? undefined;
  } while (cursor);
  return total;
}

for (const dialect of dialects) {
  describe(`modules/erasure on ${dialect}`, () => {
    test('the subject leaves raw events, rollups and pending exports; the receipt is opaque; late events are dropped', async (t) => {
      let answer = 503;
      const rx = await receiver(t, () => answer);
      const clock = testClock(T0);
      const { app, database } = await buildTestApp(t, {
        dialect,
        now: clock.now,
        config: {
          exportPolicy: {
            allowedHosts: [HOST],
            allowPrivateNetworks: true,
            resolve: { [HOST]: rx.address },
            caFile: rx.caFile,
          },
        },
      });
      const s = await telemetryApp(app);
      const env = { appId: s.appId, env: 'prod' };
      const dst = await call(app, 'POST', '/api/v1/telemetry/exports', {
        token: s.admin,
        idem: true,
        payload: { ...env, name: 'rx', url: `https://${HOST}/in` },
      });
      assert.equal(dst.statusCode, 201, dst.body);

      const subjects = Array.from({ length: 30 }, (_, i) => `subject-${i}`);
      const batch = [
        ...subjects.map((k) => exposure(AT, k)),
        ...subjects.map((k, i) => outcome(k, i)),
        outcome('subject-7', 100),
      ];
      assert.equal((await sendBatch(app, s.sdkProd, batch)).json().accepted, batch.length);
      const before = await measures(app, s.user.token, s.appId);
      assert.deepEqual(
        [before.exposure.events, before.exposure.subjects, before.outcome.events, before.outcome.metricSum],
        [30, 30, 31, 535],
      );
      assert.equal(await eventCount(app, s.user.token, s.appId), 61);

      // The export's first attempt fails: its delivery waits, holding subject-7's events. (On
      // PostgreSQL the feed reads below every transaction still in flight on the server: wait for it.)
      await feedCaughtUp(database.handle.db);
      clock.advance(3_000);
      await app.jobs.ensureSchedules();
      await app.jobs.drain();
      assert.equal(rx.received.length, 1);
      assert.ok(rx.received[0]!.body.includes('"subject-7"'));

      const res = await call(app, 'POST', '/api/v1/telemetry/erasures', {
        token: s.admin,
        payload: { ...env, namespace: 'targetingKey', subjectId: 'subject-7' },
      });
      assert.equal(res.statusCode, 202, res.body);
      const receipt = res.json().receipt;
      assert.deepEqual(Object.keys(receipt).sort(), ['completedAt', 'cutoff', 'id', 'requestedAt', 'status']);
      assert.match(receipt.id, /^ers_/);
      assert.equal(receipt.status, 'pending');
      assert.ok(!res.body.includes('subject-7'));
      const read = async () =>
        (
          await call(app, 'GET', `/api/v1/telemetry/erasures?${new URLSearchParams({ ...env, id: receipt.id })}`, {
            token: s.user.token,
          })
        ).json().receipt;
      assert.deepEqual(await read(), receipt);

      await app.jobs.drain();
      const done = await read();
      assert.equal(done.status, 'completed');
      assert.ok(done.completedAt);
      // Journaled by receipt id only.
      const journal = await call(
        app,
        'GET',
        `/api/v1/changes?${new URLSearchParams({ appId: s.appId, resourceType: 'subject_erasure' })}`,
        { token: s.user.token },
      );
      assert.deepEqual(
        journal
          .json()
          .changes.map((e: any) => [e.operation, e.resourceId, e.authority.type])
          .sort(),
        [
          ['erasure.complete', receipt.id, 'system'],
          ['erasure.request', receipt.id, 'admin_key'],
        ],
      );
      assert.ok(!journal.body.includes('subject-7'), 'the journal never names the subject');

      const after = await measures(app, s.user.token, s.appId);
      assert.deepEqual(
        [after.exposure.events, after.exposure.subjects, after.outcome.events, after.outcome.metricSum],
        [29, 29, 29, 535 - 7 - 100],
      );
      assert.equal(await eventCount(app, s.user.token, s.appId), 58);

      // The pending delivery goes out without the subject's events.
      answer = 200;
      clock.advance(120_000);
      await app.jobs.ensureSchedules();
      await app.jobs.drain();
      const last = rx.received.at(-1)!;
      assert.equal(last.headers['webhook-id'], rx.received[0]!.headers['webhook-id']);
      assert.ok(!last.body.includes('subject-7'));
      assert.equal(JSON.parse(last.body).events.length, 58);

      // A late event stamped before the cutoff is answered accepted and dropped; a later one is kept.
      const late = await sendBatch(app, s.sdkProd, [
        exposure(AT + 5_000, 'subject-7'),
        exposure(AT + 5_000, 'subject-8'),
      ]);
      assert.deepEqual(
        late.json().results.map((r: any) => r.status),
        ['accepted', 'accepted'],
      );
      assert.equal(await eventCount(app, s.user.token, s.appId), 59);
      const fresh = await sendBatch(app, s.sdkProd, [exposure(clock.now(), 'subject-7')]);
      assert.equal(fresh.json().accepted, 1);
      assert.equal(await eventCount(app, s.user.token, s.appId), 60);
    });

    test("an erased subject's events at or before the cutoff are dropped for as long as events that old are accepted (30 days); then the tombstone goes", async (t) => {
      const clock = testClock(T0);
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const db = database.handle.db;
      const s = await telemetryApp(app);
      const env = { appId: s.appId, env: 'prod' };
      const stored = async (subject: string) =>
        Number(
          (
            await db
              .selectFrom('telemetry_events')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('targeting_key', '=', subject)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const tombstones = async () =>
        Number(
          (
            await db
              .selectFrom('telemetry_tombstones')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal((await sendBatch(app, s.sdkProd, [exposure(AT, 'gone'), exposure(AT, 'kept')])).json().accepted, 2);
      const res = await call(app, 'POST', '/api/v1/telemetry/erasures', {
        token: s.admin,
        payload: { ...env, namespace: 'targetingKey', subjectId: 'gone' },
      });
      assert.equal(res.statusCode, 202, res.body);
      const cutoff = Date.parse(res.json().receipt.cutoff);
      assert.equal(cutoff, T0);
      await app.jobs.drain();
      assert.equal(await stored('gone'), 0);

      // Day 8 (the seed's 7-day lateness window is over): an event stamped before the erasure,
      // attributes and all, is answered accepted and not stored; one stamped after it is kept.
      const DAY = 86_400_000;
      clock.set(cutoff + 8 * DAY);
      const late = await sendBatch(app, s.sdkProd, [
        exposure(cutoff - HOUR, 'gone', { attributes: { email: 'gone@example.com' } }),
        exposure(cutoff, 'gone'),
        exposure(cutoff + 1, 'gone'),
        exposure(cutoff - HOUR, 'kept'),
      ]);
      assert.deepEqual(
        late.json().results.map((r: any) => r.status),
        ['accepted', 'accepted', 'accepted', 'accepted'],
      );
      assert.equal(await stored('gone'), 1, 'only the event stamped after the cutoff');
      assert.equal(await stored('kept'), 2);

      // The last instant an event stamped at the cutoff is accepted: still dropped.
      clock.set(cutoff + 30 * DAY);
      assert.equal((await sendBatch(app, s.sdkProd, [exposure(cutoff, 'gone')])).json().results[0].status, 'accepted');
      assert.equal(await stored('gone'), 1);
      assert.equal((await purgeExpiredTelemetry(db, clock.now())).deletedTombstones, 0, 'still needed');
      assert.equal(await tombstones(), 1);

      // A moment later no event that old is accepted, so the tombstone is no longer needed.
      clock.set(cutoff + 30 * DAY + 1);
      const tooOld = (await sendBatch(app, s.sdkProd, [exposure(cutoff, 'gone')])).json().results[0];
      assert.equal(tooOld.status, 'permanent-error');
      assert.equal(tooOld.code, 'timestamp_out_of_range');
      assert.equal((await purgeExpiredTelemetry(db, clock.now())).deletedTombstones, 1);
      assert.equal(await tombstones(), 0);
      assert.equal(
        (await sendBatch(app, s.sdkProd, [exposure(clock.now() - HOUR, 'gone')])).json().accepted,
        1,
        "events after the cutoff are the subject's new data",
      );
    });

    test('migration 0110 gives the tombstones already stored the 30-day lifetime', async (t) => {
      const { database } = await buildTestApp(t, { dialect });
      const db = database.handle.db;
      const env = await db.selectFrom('environments').select('id').executeTakeFirst();
      const envId = env?.id ?? 'env_none';
      await db
        .insertInto('telemetry_tombstones')
        .values([
          { env_id: envId, subject_hash: 'h1', cutoff: T0, expires_at: T0 + 7 * 86_400_000 },
          { env_id: envId, subject_hash: 'h2', cutoff: T0 - 10 * 86_400_000, expires_at: T0 - 3 * 86_400_000 },
        ])
        .execute();
      await tombstoneMigration.up(db);
      const rows = await db
        .selectFrom('telemetry_tombstones')
        .select(['subject_hash', 'expires_at'])
        .orderBy('subject_hash')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.subject_hash, Number(r.expires_at)]),
        [
          ['h1', T0 + 30 * 86_400_000 + 1],
          ['h2', T0 + 20 * 86_400_000 + 1],
        ],
      );
    });

    test("404 for unknown or other apps' receipts; 403 strangers; 401 environment keys; 400 bad bodies", async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await telemetryApp(app);
      const env = { appId: s.appId, env: 'prod' };
      const body = { ...env, namespace: 'targetingKey', subjectId: 'alice' };
      const receipt = (
        await call(app, 'POST', '/api/v1/telemetry/erasures', { token: s.user.token, payload: body })
      ).json().receipt;
      expectError(
        await call(app, 'GET', `/api/v1/telemetry/erasures?${new URLSearchParams({ ...env, id: 'ers_missing' })}`, {
          token: s.user.token,
        }),
        404,
        'not_found',
      );
      expectError(
        await call(
          app,
          'GET',
          `/api/v1/telemetry/erasures?${new URLSearchParams({ ...env, env: 'dev', id: receipt.id })}`,
          { token: s.user.token },
        ),
        404,
        'not_found',
      );
      const other = await telemetryApp(app);
      expectError(
        await call(
          app,
          'GET',
          `/api/v1/telemetry/erasures?${new URLSearchParams({ appId: other.appId, env: 'prod', id: receipt.id })}`,
          { token: other.user.token },
        ),
        404,
        'not_found',
      );
      const stranger = await signUp(app);
      expectError(
        await call(app, 'POST', '/api/v1/telemetry/erasures', { token: stranger.token, payload: body }),
        403,
        'forbidden',
      );
      expectError(
        await call(app, 'POST', '/api/v1/telemetry/erasures', { token: s.sdkProd, payload: body }),
        401,
        'unauthorized',
      );
      for (const bad of [{ namespace: 'email' }, { subjectId: '' }, { extra: 1 }]) {
        assert.equal(
          (await call(app, 'POST', '/api/v1/telemetry/erasures', { token: s.user.token, payload: { ...body, ...bad } }))
            .statusCode,
          400,
        );
      }
    });
  });
}

// Subject erasure end to end: after the job no insight, event page or pending export holds the
// subject, the receipt reveals nothing, and a late event for the subject is dropped (answered accepted).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, signUp } from '../../../../test/helpers/fixtures.js';
import { HOST, receiver } from '../exports/exports.fixtures.js';
import { eventId, exposure, movableClock, sendBatch, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const AT = T0 - HOUR + 60_000;

function outcome(subject: string, value: number) {
  return { id: eventId('o'), kind: 'outcome', timestamp: iso(AT + 1000), targetingKey: subject, flagKey: 'shown', variant: 'on', metricKey: 'revenue', metricValue: value };
}

async function measures(app: FastifyInstance, token: string, appId: string) {
  const res = await call(app, 'POST', '/api/v1/insights/query', { token, payload: { appId, env: 'prod', from: iso(T0 - 2 * HOUR), to: iso(T0), grain: 'hour', dimensions: ['kind'], measures: ['events', 'subjects', 'metricSum'] } });
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries(res.json().rows.map((r: any) => [r.dimensions.kind, r.measures]));
}

async function eventCount(app: FastifyInstance, token: string, appId: string) {
  let total = 0;
  let cursor: string | undefined;
  do {
    const res = await call(app, 'POST', '/api/v1/insights/events', { token, payload: { appId, env: 'prod', from: iso(T0 - 2 * HOUR), to: iso(T0 + HOUR), kinds: ['exposure', 'outcome'], limit: 100, ...(cursor ? { cursor } : {}) } });
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
      const clock = movableClock(T0);
      const { app } = await buildTestApp(t, { dialect, now: clock.now, config: { exportPolicy: { allowedHosts: [HOST], allowPrivateNetworks: true, resolve: { [HOST]: rx.address }, caFile: rx.caFile } } });
      const s = await telemetryApp(app);
      const env = { appId: s.appId, env: 'prod' };
      const dst = await call(app, 'POST', '/api/v1/telemetry/exports', { token: s.admin, idem: true, payload: { ...env, name: 'rx', url: `https://${HOST}/in` } });
      assert.equal(dst.statusCode, 201, dst.body);

      const subjects = Array.from({ length: 30 }, (_, i) => `subject-${i}`);
      const batch = [...subjects.map((k) => exposure(AT, k)), ...subjects.map((k, i) => outcome(k, i)), outcome('subject-7', 100)];
      assert.equal((await sendBatch(app, s.sdkProd, batch)).json().accepted, batch.length);
      const before = await measures(app, s.user.token, s.appId);
      assert.deepEqual([before.exposure.events, before.exposure.subjects, before.outcome.events, before.outcome.metricSum], [30, 30, 31, 535]);
      assert.equal(await eventCount(app, s.user.token, s.appId), 61);

      // The export's first attempt fails: its delivery waits, holding subject-7's events.
      clock.advance(3_000);
      await app.jobs.ensureSchedules();
      await app.jobs.drain();
      assert.equal(rx.received.length, 1);
      assert.ok(rx.received[0]!.body.includes('"subject-7"'));

      const res = await call(app, 'POST', '/api/v1/telemetry/erasures', { token: s.admin, payload: { ...env, namespace: 'targetingKey', subjectId: 'subject-7' } });
      assert.equal(res.statusCode, 202, res.body);
      const receipt = res.json().receipt;
      assert.deepEqual(Object.keys(receipt).sort(), ['completedAt', 'cutoff', 'id', 'requestedAt', 'status']);
      assert.match(receipt.id, /^ers_/);
      assert.equal(receipt.status, 'pending');
      assert.ok(!res.body.includes('subject-7'));
      const read = async () => (await call(app, 'GET', `/api/v1/telemetry/erasures?${new URLSearchParams({ ...env, id: receipt.id })}`, { token: s.user.token })).json().receipt;
      assert.deepEqual(await read(), receipt);

      await app.jobs.drain();
      const done = await read();
      assert.equal(done.status, 'completed');
      assert.ok(done.completedAt);
      // Journaled by receipt id only.
      const journal = await call(app, 'GET', `/api/v1/changes?${new URLSearchParams({ appId: s.appId, resourceType: 'subject_erasure' })}`, { token: s.user.token });
      assert.deepEqual(journal.json().changes.map((e: any) => [e.operation, e.resourceId, e.authority.type]).sort(), [['erasure.complete', receipt.id, 'system'], ['erasure.request', receipt.id, 'admin_key']]);
      assert.ok(!journal.body.includes('subject-7'), 'the journal never names the subject');

      const after = await measures(app, s.user.token, s.appId);
      assert.deepEqual([after.exposure.events, after.exposure.subjects, after.outcome.events, after.outcome.metricSum], [29, 29, 29, 535 - 7 - 100]);
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
      const late = await sendBatch(app, s.sdkProd, [exposure(AT + 5_000, 'subject-7'), exposure(AT + 5_000, 'subject-8')]);
      assert.deepEqual(late.json().results.map((r: any) => r.status), ['accepted', 'accepted']);
      assert.equal(await eventCount(app, s.user.token, s.appId), 59);
      const fresh = await sendBatch(app, s.sdkProd, [exposure(clock.now(), 'subject-7')]);
      assert.equal(fresh.json().accepted, 1);
      assert.equal(await eventCount(app, s.user.token, s.appId), 60);
      // After 7 days the tombstone no longer applies.
      clock.advance(7 * 86_400_000 + 1);
      const outside = await sendBatch(app, s.sdkProd, [exposure(T0 - 1000, 'subject-7')]);
      assert.equal(outside.json().results[0].status, 'accepted');
    });

    test('404 for unknown or other apps\' receipts; 403 strangers; 401 environment keys; 400 bad bodies', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await telemetryApp(app);
      const env = { appId: s.appId, env: 'prod' };
      const body = { ...env, namespace: 'targetingKey', subjectId: 'alice' };
      const receipt = (await call(app, 'POST', '/api/v1/telemetry/erasures', { token: s.user.token, payload: body })).json().receipt;
      expectError(await call(app, 'GET', `/api/v1/telemetry/erasures?${new URLSearchParams({ ...env, id: 'ers_missing' })}`, { token: s.user.token }), 404, 'not_found');
      expectError(await call(app, 'GET', `/api/v1/telemetry/erasures?${new URLSearchParams({ ...env, env: 'dev', id: receipt.id })}`, { token: s.user.token }), 404, 'not_found');
      const other = await telemetryApp(app);
      expectError(await call(app, 'GET', `/api/v1/telemetry/erasures?${new URLSearchParams({ appId: other.appId, env: 'prod', id: receipt.id })}`, { token: other.user.token }), 404, 'not_found');
      const stranger = await signUp(app);
      expectError(await call(app, 'POST', '/api/v1/telemetry/erasures', { token: stranger.token, payload: body }), 403, 'forbidden');
      expectError(await call(app, 'POST', '/api/v1/telemetry/erasures', { token: s.sdkProd, payload: body }), 401, 'unauthorized');
      for (const bad of [{ namespace: 'email' }, { subjectId: '' }, { extra: 1 }]) {
        assert.equal((await call(app, 'POST', '/api/v1/telemetry/erasures', { token: s.user.token, payload: { ...body, ...bad } })).statusCode, 400);
      }
    });
  });
}

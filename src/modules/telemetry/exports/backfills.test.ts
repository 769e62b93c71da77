// A backfill interrupted between pages (a process killed, a lease lost) resumes from its stored
// cursor: every event of the window is cut exactly once across the two runs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call } from '../../../../test/helpers/fixtures.js';
import { exposure, sendBatch, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { runBackfill } from './backfills.js';
import { createDeliveryWorker } from './webhook-delivery-worker.js';
import { createWebhookSender } from './webhook-sender.js';
import { createSecretBox } from '../../../platform/secret-box.js';
import { testClock } from '../../../../test/helpers/clock.js';

const policy = { allowedHosts: ['receiver.test'], allowPrivateNetworks: false, resolve: {} };

for (const dialect of dialects) {
  describe(`export backfills on ${dialect}`, () => {
    test('an interrupted backfill resumes from its cursor and cuts nothing twice', async (t) => {
      const clock = testClock(Date.now());
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now, config: { exportPolicy: policy } });
      const db = database.handle.db;
      const s = await telemetryApp(app);
      const env = { appId: s.appId, env: 'prod' };
      const events = Array.from({ length: 1500 }, (_, i) => exposure(clock.now() - 60_000 + i, `subject-${i}`));
      for (let i = 0; i < events.length; i += 100)
        assert.equal((await sendBatch(app, s.sdkProd, events.slice(i, i + 100))).json().accepted, 100);
      clock.advance(10_000);
      const created = await call(app, 'POST', '/api/v1/telemetry/exports', {
        token: s.admin,
        idem: true,
        payload: { ...env, name: 'rx', url: 'https://receiver.test/in', batchSize: 100 },
      });
      const destination = created.json().destination;
      const res = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/backfills`, {
        token: s.admin,
        payload: {
          ...env,
          from: new Date(clock.now() - 3_600_000).toISOString(),
          idempotencyKey: 'backfill-resume-0001',
        },
      });
      assert.equal(res.statusCode, 202, res.body);
      const id = res.json().backfill.id;

      const worker = createDeliveryWorker({
        db,
        policy,
        box: createSecretBox('x'.repeat(32), 'export-signing-secret'),
        send: createWebhookSender(policy),
        now: clock.now,
      });
      // The first run stops after one page, as a killed process or a lost lease would.
      const controller = new AbortController();
      const interrupted = {
        backfillPage: async (...args: Parameters<typeof worker.backfillPage>) => {
          const page = await worker.backfillPage(...args);
          controller.abort();
          return page;
        },
      };
      await assert.rejects(
        runBackfill({ db, worker: interrupted, now: clock.now }, id, controller.signal),
        /interrupted/,
      );
      const halfway = await db
        .selectFrom('export_backfills')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([halfway.status, Number(halfway.events), Number(halfway.deliveries)], ['running', 1000, 10]);

      await runBackfill({ db, worker, now: clock.now }, id);
      const done = (
        await call(
          app,
          'GET',
          `/api/v1/telemetry/exports/${destination.id}/backfills/${id}?${new URLSearchParams(env)}`,
          { token: s.admin },
        )
      ).json().backfill;
      assert.deepEqual([done.status, done.events, done.deliveries], ['completed', 1500, 15]);
      const rows = await db
        .selectFrom('export_deliveries')
        .select(['event_ids'])
        .where('destination_id', '=', destination.id)
        .execute();
      const ids = rows.flatMap((r: any) => JSON.parse(r.event_ids) as string[]);
      assert.equal(ids.length, 1500);
      assert.equal(new Set(ids).size, 1500, 'no event cut twice');
      // A third run finds the backfill finished and does nothing.
      await runBackfill({ db, worker, now: clock.now }, id);
      assert.equal(
        (await db.selectFrom('export_deliveries').select('id').where('destination_id', '=', destination.id).execute())
          .length,
        15,
      );
    });
  });
}

// One owner per delivery (decision 0037): two workers at once send it once; a deliver job that goes
// dead (its process killed on every attempt) leaves the delivery failed and retryable, never
// `delivering` for ever. One deliver job per destination (decision 0058) sends a backlog a few
// deliveries at once, each once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dialects, testConfig } from '../../../../test/helpers/test-app.js';
import { call } from '../../../../test/helpers/fixtures.js';
import { createSecretBox } from '../../../platform/secret-box.js';
import { exposure, sendBatch } from '../ingestion/telemetry.fixtures.js';
import { exportSetup, feedCaughtUp } from './exports.fixtures.js';
import { createDeliveryWorker, DELIVER_JOB, DRAIN_LANES } from './webhook-delivery-worker.js';
import type { WebhookSender } from './webhook-sender.js';

for (const dialect of dialects) {
  describe(`delivery claims on ${dialect}`, () => {
    async function setup(t: Parameters<typeof exportSetup>[0]) {
      const setup = await exportSetup(t, dialect);
      const db = setup.database.handle.db;
      let sends = 0;
      let inFlight = 0;
      let mostInFlight = 0;
      // A receiver that takes its time, as the 1.5 s receiver of the issue did.
      const sentIds: string[] = [];
      const slow: WebhookSender = async (_target, headers) => {
        sends++;
        sentIds.push(headers['webhook-id']!);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await new Promise((r) => setTimeout(r, 100));
        inFlight--;
        return { status: 200, message: '' };
      };
      const worker = createDeliveryWorker({
        db,
        policy: { allowedHosts: [], allowPrivateNetworks: true, resolve: { 'receiver.test': '127.0.0.1' } },
        box: createSecretBox(testConfig().secret, 'export-signing-secret'),
        send: slow,
        now: setup.clock.now,
      });
      assert.equal(
        (await sendBatch(setup.app, setup.s.sdkProd, [exposure(setup.clock.now() - 1000, 'alice')])).statusCode,
        200,
      );
      await feedCaughtUp(db);
      assert.equal(await worker.schedule(), 1);
      const [delivery] = await setup.deliveries();
      return { ...setup, db, worker, delivery, sends: () => sends, mostInFlight: () => mostInFlight, sentIds };
    }

    test('three workers at once: one claims the delivery and sends it, the others leave it', async (t) => {
      const { worker, destination, sends, deliveries } = await setup(t);
      await Promise.all([
        worker.drain(destination.id, { owner: 'job_a#1' }),
        worker.drain(destination.id, { owner: 'job_b#1' }),
        worker.drain(destination.id),
      ]);
      assert.equal(sends(), 1, 'sent once');
      const [after] = await deliveries();
      assert.deepEqual([after.status, after.attempts], ['delivered', 1]);
    });

    test('a claim held by a live owner is left alone; once it lapses another attempt sends', async (t) => {
      const { db, worker, delivery, destination, clock, sends, deliveries } = await setup(t);
      await db
        .updateTable('export_deliveries')
        .set({
          status: 'delivering',
          claim_owner: 'job_gone#1',
          claimed_until: new Date(clock.now() + 60_000).toISOString(),
        })
        .where('id', '=', delivery.id)
        .execute();
      assert.deepEqual(await worker.drain(destination.id, { owner: 'job_b#1' }), { sent: 0, more: false });
      assert.equal(sends(), 0);
      clock.advance(61_000);
      await worker.drain(destination.id, { owner: 'job_b#2' });
      assert.equal(sends(), 1);
      assert.equal((await deliveries())[0].status, 'delivered');
    });

    test('a deliver job killed on every attempt makes its delivery failed and retryable', async (t) => {
      const { app, db, delivery, clock, s, env, destination, rx, deliveries, pump } = await setup(t);
      const job = await db
        .selectFrom('jobs')
        .select(['id', 'max_attempts'])
        .where('kind', '=', DELIVER_JOB)
        .where('state', '=', 'queued')
        .executeTakeFirstOrThrow();
      // What a process killed mid-send on the last attempt leaves: the job running under an expired
      // lease, the delivery claimed by that attempt.
      const past = new Date(clock.now() - 1000).toISOString();
      await db
        .updateTable('jobs')
        .set({ state: 'running', attempts: job.max_attempts, lease_owner: 'killed:1', lease_expires_at: past })
        .where('id', '=', job.id)
        .execute();
      await db
        .updateTable('export_deliveries')
        .set({
          status: 'delivering',
          claim_owner: `${job.id}#${job.max_attempts}`,
          claimed_until: new Date(clock.now() + 30_000).toISOString(),
        })
        .where('id', '=', delivery.id)
        .execute();
      await app.jobs.runDue();
      assert.equal(
        (await db.selectFrom('jobs').select('state').where('id', '=', job.id).executeTakeFirstOrThrow()).state,
        'dead',
      );
      const [failed] = await deliveries();
      assert.deepEqual(
        [failed.status, failed.lastError.code, failed.nextAttemptAt],
        ['failed', 'delivery_abandoned', null],
      );
      const retry = await call(
        app,
        'POST',
        `/api/v1/telemetry/exports/${destination.id}/deliveries/${delivery.id}/retry`,
        { token: s.admin, payload: env },
      );
      assert.equal(retry.statusCode, 202, retry.body);
      await pump();
      assert.equal(
        rx.received.length,
        1,
        JSON.stringify({
          deliveries: await deliveries(),
          jobs: await db.selectFrom('jobs').select(['kind', 'state', 'attempts', 'last_error']).execute(),
        }),
      );
      assert.equal((await deliveries())[0].status, 'delivered');
    });

    test('a backlog: one deliver job for the destination, a few deliveries in flight at once, each sent once, oldest first', async (t) => {
      const { app, db, worker, s, clock, destination, sends, sentIds, mostInFlight, deliveries } = await setup(t);
      // 9 more events: 5 more deliveries of 2 (the first one is already cut).
      const events = Array.from({ length: 9 }, (_, i) => exposure(clock.now() - 900 + i, `user-${i}`));
      assert.equal((await sendBatch(app, s.sdkProd, events)).statusCode, 200);
      await feedCaughtUp(db);
      assert.equal(await worker.schedule(), 5);
      const queued = await db
        .selectFrom('jobs')
        .select(['payload'])
        .where('kind', '=', DELIVER_JOB)
        .where('state', '=', 'queued')
        .execute();
      assert.deepEqual(
        queued.map((j) => JSON.parse(j.payload)),
        [{ destinationId: destination.id }],
        'one job for the destination, not one per delivery',
      );
      // Ids are time-ordered: sorted, they are the order the deliveries were cut in.
      const created = (await deliveries()).map((d: { id: string }) => d.id).sort();
      assert.equal(created.length, 6);
      assert.deepEqual(await worker.drain(destination.id, { owner: 'job_c#1' }), { sent: 6, more: false });
      assert.equal(sends(), 6, 'each delivery sent once');
      // Oldest first: the first lanes take the oldest deliveries (they may start sending in any order).
      assert.deepEqual(sentIds.slice(0, DRAIN_LANES).sort(), created.slice(0, DRAIN_LANES));
      assert.deepEqual([...sentIds].sort(), created);
      assert.ok(mostInFlight() > 1 && mostInFlight() <= DRAIN_LANES, `${mostInFlight()} in flight at most`);
      for (const d of await deliveries()) assert.deepEqual([d.status, d.attempts], ['delivered', 1]);
    });
  });
}

// One owner per delivery (decision 0037): two attempts at once send it once; a deliver job that goes
// dead (its process killed on every attempt) leaves the delivery failed and retryable, never
// `delivering` for ever.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dialects, testConfig } from '../../../../test/helpers/test-app.js';
import { call } from '../../../../test/helpers/fixtures.js';
import { createSecretBox } from '../../../platform/secret-box.js';
import { exposure, sendBatch } from '../ingestion/telemetry.fixtures.js';
import { exportSetup, feedCaughtUp } from './exports.fixtures.js';
import { createDeliveryWorker, DELIVER_JOB } from './webhook-delivery-worker.js';
import type { WebhookSender } from './webhook-sender.js';

for (const dialect of dialects) {
  describe(`delivery claims on ${dialect}`, () => {
    async function setup(t: Parameters<typeof exportSetup>[0]) {
      const setup = await exportSetup(t, dialect);
      const db = setup.database.handle.db;
      let sends = 0;
      // A receiver that takes its time, as the 1.5 s receiver of the issue did.
      const slow: WebhookSender = async () => {
        sends++;
        await new Promise((r) => setTimeout(r, 100));
        return { status: 200, message: '' };
      };
      const worker = createDeliveryWorker({ db, policy: { allowedHosts: [], allowPrivateNetworks: true, resolve: { 'receiver.test': '127.0.0.1' } }, box: createSecretBox(testConfig().secret, 'export-signing-secret'), send: slow, now: setup.clock.now });
      assert.equal((await sendBatch(setup.app, setup.s.sdkProd, [exposure(setup.clock.now() - 1000, 'alice')])).statusCode, 200);
      await feedCaughtUp(db);
      assert.equal(await worker.schedule(), 1);
      const [delivery] = await setup.deliveries();
      return { ...setup, db, worker, delivery, sends: () => sends };
    }

    test('two attempts at once: one claims the delivery and sends it, the other leaves it', async (t) => {
      const { worker, delivery, sends, deliveries } = await setup(t);
      await Promise.all([worker.deliver(delivery.id, { owner: 'job_a#1' }), worker.deliver(delivery.id, { owner: 'job_b#1' }), worker.deliver(delivery.id)]);
      assert.equal(sends(), 1, 'sent once');
      const [after] = await deliveries();
      assert.deepEqual([after.status, after.attempts], ['delivered', 1]);
    });

    test('a claim held by a live owner is left alone; once it lapses another attempt sends', async (t) => {
      const { db, worker, delivery, clock, sends, deliveries } = await setup(t);
      await db.updateTable('export_deliveries').set({ status: 'delivering', claim_owner: 'job_gone#1', claimed_until: new Date(clock.now() + 60_000).toISOString() }).where('id', '=', delivery.id).execute();
      await worker.deliver(delivery.id, { owner: 'job_b#1' });
      assert.equal(sends(), 0);
      clock.advance(61_000);
      await worker.deliver(delivery.id, { owner: 'job_b#2' });
      assert.equal(sends(), 1);
      assert.equal((await deliveries())[0].status, 'delivered');
    });

    test('a deliver job killed on every attempt makes its delivery failed and retryable', async (t) => {
      const { app, db, delivery, clock, s, env, destination, rx, deliveries, pump } = await setup(t);
      const job = await db.selectFrom('jobs').select(['id', 'max_attempts']).where('kind', '=', DELIVER_JOB).where('state', '=', 'queued').executeTakeFirstOrThrow();
      // What a process killed mid-send on the last attempt leaves: the job running under an expired
      // lease, the delivery claimed by that attempt.
      const past = new Date(clock.now() - 1000).toISOString();
      await db.updateTable('jobs').set({ state: 'running', attempts: job.max_attempts, lease_owner: 'killed:1', lease_expires_at: past }).where('id', '=', job.id).execute();
      await db.updateTable('export_deliveries').set({ status: 'delivering', claim_owner: `${job.id}#${job.max_attempts}`, claimed_until: new Date(clock.now() + 30_000).toISOString() }).where('id', '=', delivery.id).execute();
      await app.jobs.runDue();
      assert.equal((await db.selectFrom('jobs').select('state').where('id', '=', job.id).executeTakeFirstOrThrow()).state, 'dead');
      const [failed] = await deliveries();
      assert.deepEqual([failed.status, failed.lastError.code, failed.nextAttemptAt], ['failed', 'delivery_abandoned', null]);
      const retry = await call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/deliveries/${delivery.id}/retry`, { token: s.admin, payload: env });
      assert.equal(retry.statusCode, 202, retry.body);
      await pump();
      assert.equal(rx.received.length, 1, JSON.stringify({ deliveries: await deliveries(), jobs: await db.selectFrom('jobs').select(['kind', 'state', 'attempts', 'last_error']).execute() }));
      assert.equal((await deliveries())[0].status, 'delivered');
    });
  });
}

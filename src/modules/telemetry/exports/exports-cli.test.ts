// `ensign exports` and `ensign erasures` against a real server (SQLite, jobs running) and a real
// HTTPS receiver, as an operator runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { cliUser } from '../../../../test/helpers/cli-runner.js';
import { startTestServer } from '../../../../test/helpers/e2e-server.js';
import { exposure, sendBatch, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { HOST, receiver } from './exports.fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

test('ensign exports create, backfill --wait, backfills; ensign erasures request and show', async (t) => {
  const rx = await receiver(t, () => 200);
  const { app, address, dir } = await startTestServer(t, 'exports-cli', {
    exportPolicy: {
      allowedHosts: [HOST],
      allowPrivateNetworks: true,
      resolve: { [HOST]: rx.address },
      caFile: rx.caFile,
    },
    jobs: { concurrency: 2, pollIntervalMs: 100 },
  });
  const s = await telemetryApp(app);
  const { ok } = cliUser(address, s.user.token, dir);
  const scope = ['--app', s.appId, '--env', 'prod'];
  const start = Date.now();
  const sent = await sendBatch(app, s.sdkProd, [exposure(start - 2000, 'alice'), exposure(start - 1000, 'bob')]);
  assert.equal(sent.json().accepted, 2, sent.body);

  // Created after the events: only a backfill sends them.
  const created = JSON.parse(
    await ok(['exports', 'create', ...scope, '--name', 'warehouse', '--target-url', `https://${HOST}/in`, '--json']),
  );
  const id = created.destination.id;
  const backfill = JSON.parse(
    await ok([
      'exports',
      'backfill',
      id,
      ...scope,
      '--from',
      new Date(start - 60_000).toISOString(),
      '--wait',
      '--json',
    ]),
  ).backfill;
  assert.deepEqual([backfill.status, backfill.events], ['completed', 2]);
  const listed = await ok(['exports', 'backfills', id, ...scope]);
  assert.match(listed, new RegExp(`${backfill.id}\\s+completed`));
  const one = JSON.parse(await ok(['exports', 'backfills', id, ...scope, '--backfill', backfill.id, '--json']));
  assert.equal(one.backfill.id, backfill.id);
  await waitFor(() => rx.received.length > 0, 10_000, { intervalMs: 100, what: 'the backfill reached the receiver' });
  const payload = new Webhook(created.signingSecret).verify(rx.received[0]!.body, rx.received[0]!.headers) as {
    events: { targetingKey: string }[];
  };
  assert.deepEqual(payload.events.map((e) => e.targetingKey).sort(), ['alice', 'bob']);

  const receipt = JSON.parse(await ok(['erasures', 'request', ...scope, '--subject', 'alice', '--json'])).receipt;
  assert.match(receipt.id, /^ers_/);
  assert.ok(!JSON.stringify(receipt).includes('alice'));
  await waitFor(
    async () =>
      JSON.parse(await ok(['erasures', 'show', receipt.id, ...scope, '--json'])).receipt.status === 'completed',
    10_000,
    {
      intervalMs: 100,
      what: 'the erasure completed',
    },
  );
});

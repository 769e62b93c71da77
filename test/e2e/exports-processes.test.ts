// Black box, two real server processes on one PostgreSQL database, over HTTP, with an HTTPS receiver
// that verifies every signature: one process is paused with SIGSTOP three times mid-ingestion (its
// open transactions commit late, after the other process's), and every acknowledged event still
// reaches the receiver (decision 0036: the export feed is read in commit order).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { HOST, receiver } from '../../src/modules/telemetry/exports/exports.fixtures.js';
import { POSTGRES_URL } from '../helpers/test-app.js';
import { httpCall as call, scratchDatabase, startServerProcess } from '../helpers/server-processes.js';
import { waitFor } from '../helpers/polling.js';

/** The last warnings and errors a server process logged (pino: level 40 and above). */
function problemsOf(server: { output(): string }): string {
  return server
    .output()
    .split('\n')
    .filter((line) => /"level":(4|5|6)0/.test(line))
    .slice(-10)
    .join('\n');
}

const CLIENTS = 8;
const BATCHES_PER_CLIENT = 40;
const EVENTS_PER_BATCH = 10;
const PAUSES = 3;
const PAUSE_MS = 6_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(
  'one of two processes paused mid-ingestion: every acknowledged event is exported',
  { skip: !POSTGRES_URL && 'ENSIGN_TEST_POSTGRES_URL is not set' },
  async (t) => {
    const rx = await receiver(t, () => 200);
    const databaseUrl = await scratchDatabase(t);
    const dataDir = mkdtempSync(join(tmpdir(), 'ensign-e2e-exports-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      ...process.env,
      ENSIGN_DATABASE_URL: databaseUrl,
      ENSIGN_PORT: '0',
      ENSIGN_HOST: '127.0.0.1',
      ENSIGN_DATA_DIR: dataDir,
      ENSIGN_SECRET: 'e2e-secret-e2e-secret-e2e-secret-0123',
      ENSIGN_LOG_LEVEL: 'info',
      ENSIGN_JOBS_POLL_MS: '200',
      ENSIGN_EXPORT_ALLOWED_HOSTS: HOST,
      ENSIGN_EXPORT_ALLOW_PRIVATE_NETWORKS: 'true',
      ENSIGN_EXPORT_RESOLVE: `${HOST}:${rx.address}`,
      ENSIGN_EXPORT_CA_FILE: rx.caFile,
      ENSIGN_TELEMETRY_EVENTS_PER_SECOND: '100000',
    };
    const a = await startServerProcess(env, t);
    const b = await startServerProcess(env, t);
    // A paused process must be woken before the test's cleanup stops it.
    t.after(() => void b.child.kill('SIGCONT'));

    const login = await call(a.address, 'POST', '/api/v1/cli-token', undefined, {
      flow: 'signUp',
      email: 'e2e-exports@example.com',
      password: 'a long enough password',
    });
    assert.equal(login.status, 200, login.text);
    const token = login.body.token as string;
    const created = await call(
      a.address,
      'POST',
      '/api/v1/apps',
      token,
      { name: 'E2E', slug: 'e2e' },
      { 'idempotency-key': 'e2e-exports-app-0001' },
    );
    assert.equal(created.status, 201, created.text);
    const appId = created.body.app.id as string;
    const sdk = (created.body.keys as { env: string; token: string }[]).find((k) => k.env === 'prod')!.token;
    const destination = await call(
      a.address,
      'POST',
      '/api/v1/telemetry/exports',
      token,
      { appId, env: 'prod', name: 'rx', url: `https://${HOST}/hooks`, batchSize: 100 },
      { 'idempotency-key': 'e2e-exports-dst-0001' },
    );
    assert.equal(destination.status, 201, destination.text);
    const signer = new Webhook(destination.body.signingSecret);

    const acknowledged = new Set<string>();
    let ingesting = true;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      const base = client % 2 === 0 ? a.address : b.address;
      for (let batch = 0; batch < BATCHES_PER_CLIENT; batch++) {
        const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({
          id: `c${client}-b${batch}-e${i}`,
          kind: 'exposure',
          timestamp: new Date().toISOString(),
          targetingKey: `subject-${client}-${i}`,
          flagKey: 'any',
          variant: 'on',
          reason: 'SPLIT',
        }));
        const res = await call(base, 'POST', '/api/v1/events/batch', sdk, { schemaVersion: 1, events });
        // A refusal names the server's warnings and errors, whose causes say why.
        assert.ok(res.status === 200 || res.status === 429, `${res.text}\n${problemsOf(client % 2 === 0 ? a : b)}`);
        res.body.results.forEach((r: { status: string }, i: number) => {
          if (r.status === 'accepted' || r.status === 'duplicate') acknowledged.add(events[i]!.id);
        });
      }
    });
    const pauses = (async () => {
      for (let p = 0; p < PAUSES && ingesting; p++) {
        await sleep(400);
        b.child.kill('SIGSTOP');
        await sleep(PAUSE_MS);
        b.child.kill('SIGCONT');
      }
    })();
    await Promise.all(clients);
    ingesting = false;
    await pauses;
    assert.ok(
      acknowledged.size > (CLIENTS * BATCHES_PER_CLIENT * EVENTS_PER_BATCH) / 2,
      `most events acknowledged (${acknowledged.size})`,
    );

    const exported = new Set<string>();
    let verified = 0;
    // Past the minute the assertion below names what is missing.
    await waitFor(
      () => {
        for (; verified < rx.received.length; verified++) {
          const r = rx.received[verified]!;
          const payload = signer.verify(r.body, r.headers) as { events: { id: string }[] };
          for (const e of payload.events) exported.add(e.id);
        }
        return [...acknowledged].every((id) => exported.has(id));
      },
      60_000,
      { intervalMs: 250, what: 'every acknowledged event exported' },
    ).catch(() => undefined);
    const missing = [...acknowledged].filter((id) => !exported.has(id));
    assert.deepEqual(missing, [], `${missing.length} acknowledged events never exported`);
  },
);

// A real HTTPS receiver for export tests: a self-signed certificate generated with openssl, served
// on port 443 of a loopback address of its own (the tests run as root; the address is pinned with
// ENSIGN_EXPORT_RESOLVE and the certificate trusted with ENSIGN_EXPORT_CA_FILE).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { commitHorizon } from '../../../db/commit-sequence.js';
import { buildTestApp, type dialects } from '../../../../test/helpers/test-app.js';
import { call } from '../../../../test/helpers/fixtures.js';
import { telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';
import { waitFor } from '../../../../test/helpers/polling.js';

export const HOST = 'receiver.test';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A self-signed certificate for HOST (also the CA file) and an HTTPS server answering `status()`. */
export async function receiver(t: { after: (fn: () => Promise<void> | void) => void }, status: () => number) {
  const dir = mkdtempSync(join(tmpdir(), 'ensign-receiver-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      `/CN=${HOST}`,
      '-addext',
      `subjectAltName=DNS:${HOST}`,
    ],
    { stdio: 'ignore' },
  );
  const received: Received[] = [];
  const server: Server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.statusCode = status();
        res.end('ok');
      });
    },
  );
  // A loopback address of its own, so parallel test files each have their own port 443.
  const address = `127.0.${Math.floor(Math.random() * 250) + 2}.${Math.floor(Math.random() * 250) + 2}`;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(443, address, () => resolve()));
  t.after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  return { received, address, caFile: join(dir, 'cert.pem') };
}

/**
 * Waits until every event stored so far is below the commit horizon. On PostgreSQL the horizon is
 * the server's oldest transaction in flight, which other tests' transactions hold back for moments.
 */
export async function feedCaughtUp(db: Kysely<Database>): Promise<void> {
  await waitFor(
    async () => {
      const newest = await db
        .selectFrom('telemetry_events')
        .select((eb) => eb.fn.max('feed_seq').as('seq'))
        .executeTakeFirst();
      return newest?.seq === null || newest?.seq === undefined || (await commitHorizon(db)) > Number(newest.seq);
    },
    30_000,
    { intervalMs: 10, what: 'the feed horizon passed the newest event' },
  );
}

/**
 * A test app with a receiver and one destination (batches of 2) in prod; `pump` moves the clock and
 * runs every due job, as the scheduler and workers of a running server would.
 */
export async function exportSetup(
  t: Parameters<typeof buildTestApp>[0],
  dialect: (typeof dialects)[number],
  status: () => number = () => 200,
  policy: { allowPrivateNetworks?: boolean } = {},
) {
  const rx = await receiver(t, status);
  const clock = testClock(Date.now());
  const { app, database } = await buildTestApp(t, {
    dialect,
    now: clock.now,
    config: {
      exportPolicy: {
        allowedHosts: [HOST],
        allowPrivateNetworks: policy.allowPrivateNetworks ?? true,
        resolve: { [HOST]: rx.address },
        caFile: rx.caFile,
      },
    },
  });
  const s = await telemetryApp(app);
  const env = { appId: s.appId, env: 'prod' };
  const created = await call(app, 'POST', '/api/v1/telemetry/exports', {
    token: s.admin,
    idem: true,
    payload: { ...env, name: 'rx', url: `https://${HOST}/hooks?src=ensign`, batchSize: 2 },
  });
  assert.equal(created.statusCode, 201, created.body);
  const { destination, signingSecret } = created.json();
  const pump = async (ms = 2_500, options: { catchUp?: boolean } = {}) => {
    if (options.catchUp !== false) await feedCaughtUp(database.handle.db);
    clock.advance(ms);
    await app.jobs.ensureSchedules();
    await app.jobs.drain();
  };
  const qs = (extra: Record<string, string> = {}) => new URLSearchParams({ ...env, ...extra }).toString();
  const deliveries = async (extra: Record<string, string> = {}) =>
    (
      await call(app, 'GET', `/api/v1/telemetry/exports/${destination.id}/deliveries?${qs(extra)}`, { token: s.admin })
    ).json().deliveries;
  return { app, database, s, env, clock, rx, destination, signingSecret, pump, qs, deliveries };
}

// Phase 4: export throughput, to a local HTTPS receiver in batches of BATCH, two ways:
// - a backlog: the destination is paused while the events are ingested, then set active; events/s
//   delivered until the backlog is drained;
// - live: the destination is active while 8 clients ingest as fast as the server accepts for
//   BENCH_DURATION seconds; whether the export keeps up (events delivered while ingesting, and how
//   long the rest takes to arrive once ingestion stops).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RECEIVER_HOST, startReceiver } from '../export-receiver.js';
import { startEnsign, storedEvents, type ServerInfo } from './ensign-process.js';
import { BATCH, DURATION, dir, event, migratedFile, serial } from './fixture.js';

const CLIENTS = 8;

/** A server with a destination of batches of BATCH to a fresh local receiver, in the status given. */
async function withDestination<T>(
  file: string,
  status: 'active' | 'paused',
  run: (ctx: {
    info: ServerInfo;
    receiver: Awaited<ReturnType<typeof startReceiver>>;
    cpu: () => Promise<number>;
    activate: () => Promise<void>;
  }) => Promise<T>,
): Promise<T> {
  const receiver = await startReceiver(dir);
  Object.assign(process.env, {
    ENSIGN_EXPORT_ALLOWED_HOSTS: RECEIVER_HOST,
    ENSIGN_EXPORT_ALLOW_PRIVATE_NETWORKS: 'true',
    ENSIGN_EXPORT_RESOLVE: `${RECEIVER_HOST}:${receiver.address}`,
    ENSIGN_EXPORT_CA_FILE: receiver.caFile,
  });
  const { info, cpu, stop } = await startEnsign(await migratedFile(file));
  try {
    const api = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${info.address}${path}`, {
        method,
        headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return res.json() as Promise<{ destination: { id: string; version: number } }>;
    };
    const { destination } = await api(
      'POST',
      '/api/v1/telemetry/exports',
      { appId: info.appId, env: 'prod', name: 'bench', url: `https://${RECEIVER_HOST}/in`, batchSize: BATCH, status },
      { 'idempotency-key': 'bench-export-0001' },
    );
    const activate = async () => {
      await api('PATCH', `/api/v1/telemetry/exports/${destination.id}`, {
        appId: info.appId,
        env: 'prod',
        version: destination.version,
        status: 'active',
      });
    };
    return await run({ info, receiver, cpu, activate });
  } finally {
    await stop();
    await receiver.close();
  }
}

/** CLIENTS clients sending batches of BATCH until `more()` says stop. */
async function ingest(info: ServerInfo, more: (sent: number) => boolean) {
  let sent = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (more(sent)) {
        sent += BATCH;
        const res = await fetch(`${info.address}/api/v1/events/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${info.sdk.prod}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            schemaVersion: 1,
            events: Array.from({ length: BATCH }, (_, i) => event(i + serial)),
          }),
        });
        if (res.status !== 200) throw new Error(`ingestion answered ${res.status}`);
      }
    }),
  );
}

async function untilDelivered(receiver: { stats: { events: number } }, count: number) {
  const deadline = Date.now() + 300_000;
  while (receiver.stats.events < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

const n = (x: number) => Math.round(x).toLocaleString('en');

/** Drains a paused destination's backlog of `total` events and prints the throughput against the bar. */
async function backlog(total: number) {
  await withDestination('export.db', 'paused', async ({ info, receiver, cpu, activate }) => {
    await ingest(info, (sent) => sent < total);
    const stored = await storedEvents(join(dir, 'export.db'));
    const cpuBefore = await cpu();
    const start = performance.now();
    await activate();
    await untilDelivered(receiver, stored);
    // The server's CPU time per exported event: what the export costs, whatever else runs on the machine.
    const cpuPerEvent = ((await cpu()) - cpuBefore) / Math.max(1, receiver.stats.events);
    const { events, deliveries, first, last } = receiver.stats;
    console.log(
      `export of a ${n(stored)}-event backlog, batches of ${BATCH}, to a local HTTPS receiver: ${n(events / ((last - start) / 1000))} events/s from activation (first delivery after ${(first - start).toFixed(0)} ms), ${n(events / ((last - first) / 1000))} events/s from the first delivery to the last; ${n(events)} events in ${deliveries} deliveries (bar ≥ 10,000 events/s); ${cpuPerEvent.toFixed(1)} µs of server CPU per exported event (${n(1e6 / cpuPerEvent)} events per CPU-second); load average now ${loadavg()[0]!.toFixed(1)}`,
    );
  });
}

/** Ingests for DURATION seconds into an active destination: does the export keep up? */
async function live() {
  await withDestination('export-live.db', 'active', async ({ info, receiver }) => {
    const start = performance.now();
    const until = start + DURATION * 1000;
    await ingest(info, () => performance.now() < until);
    const ingestedIn = (performance.now() - start) / 1000;
    const deliveredWhileIngesting = receiver.stats.events;
    const stored = await storedEvents(join(dir, 'export-live.db'));
    const stop = performance.now();
    await untilDelivered(receiver, stored);
    console.log(
      `export while ingesting for ${DURATION} s: ${n(stored / ingestedIn)} events/s ingested, ${n(deliveredWhileIngesting / ingestedIn)} events/s delivered meanwhile (${((100 * deliveredWhileIngesting) / stored).toFixed(1)} % of them); the last of ${n(receiver.stats.events)} delivered ${((receiver.stats.last - stop) / 1000).toFixed(2)} s after ingestion stopped; load average now ${loadavg()[0]!.toFixed(1)}`,
    );
  });
}

export async function exportPhase(total: number) {
  await backlog(total);
  await live();
}

// Phase 4: export throughput. A destination with batches of BATCH is paused while the events are
// ingested, then set active; events/s delivered to a local HTTPS receiver until the backlog is drained.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RECEIVER_HOST, startReceiver } from '../export-receiver.js';
import { startEnsign, storedEvents } from './ensign-process.js';
import { BATCH, dir, event, migratedFile, serial } from './fixture.js';

/** Drains a paused destination's backlog of `total` events into a local HTTPS receiver. */
async function exportThroughput(total: number) {
  const receiver = await startReceiver(dir);
  Object.assign(process.env, {
    ENSIGN_EXPORT_ALLOWED_HOSTS: RECEIVER_HOST,
    ENSIGN_EXPORT_ALLOW_PRIVATE_NETWORKS: 'true',
    ENSIGN_EXPORT_RESOLVE: `${RECEIVER_HOST}:${receiver.address}`,
    ENSIGN_EXPORT_CA_FILE: receiver.caFile,
  });
  const { info, cpu, stop } = await startEnsign(await migratedFile('export.db'));
  try {
    const api = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${info.address}${path}`, {
        method,
        headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const created = await api(
      'POST',
      '/api/v1/telemetry/exports',
      {
        appId: info.appId,
        env: 'prod',
        name: 'bench',
        url: `https://${RECEIVER_HOST}/in`,
        batchSize: BATCH,
        status: 'paused',
      },
      { 'idempotency-key': 'bench-export-0001' },
    );
    if (created.status !== 201)
      throw new Error(`creating the destination answered ${created.status}: ${await created.text()}`);
    const destination = ((await created.json()) as { destination: { id: string; version: number } }).destination;
    let sent = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (sent < total) {
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
    const stored = await storedEvents(join(dir, 'export.db'));
    const cpuBefore = await cpu();
    const start = performance.now();
    const activated = await api('PATCH', `/api/v1/telemetry/exports/${destination.id}`, {
      appId: info.appId,
      env: 'prod',
      version: destination.version,
      status: 'active',
    });
    if (activated.status !== 200)
      throw new Error(`activating the destination answered ${activated.status}: ${await activated.text()}`);
    const deadline = Date.now() + 300_000;
    while (receiver.stats.events < stored && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // The server's CPU time per exported event: what the export costs, whatever else runs on the machine.
    const cpuPerEvent = ((await cpu()) - cpuBefore) / Math.max(1, receiver.stats.events);
    const overall = receiver.stats.events / ((receiver.stats.last - start) / 1000);
    const steady = receiver.stats.events / ((receiver.stats.last - receiver.stats.first) / 1000);
    return {
      stored,
      delivered: receiver.stats.events,
      deliveries: receiver.stats.deliveries,
      overall,
      steady,
      firstAfterMs: receiver.stats.first - start,
      cpuPerEvent,
    };
  } finally {
    await stop();
    await receiver.close();
  }
}

/** Drains a backlog of `total` events and prints the throughput against the bar. */
export async function exportPhase(total: number) {
  const result = await exportThroughput(total);
  console.log(
    `export of a ${result.stored.toLocaleString('en')}-event backlog, batches of ${BATCH}, to a local HTTPS receiver: ${Math.round(result.overall).toLocaleString('en')} events/s from activation (first delivery after ${result.firstAfterMs.toFixed(0)} ms), ${Math.round(result.steady).toLocaleString('en')} events/s from the first delivery to the last; ${result.delivered.toLocaleString('en')} events in ${result.deliveries} deliveries (bar ≥ 10,000 events/s); ${result.cpuPerEvent.toFixed(1)} µs of server CPU per exported event (${Math.round(1e6 / result.cpuPerEvent).toLocaleString('en')} events per CPU-second); load average now ${loadavg()[0]!.toFixed(1)}`,
  );
}

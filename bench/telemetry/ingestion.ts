// Phase 2: Ensign ingesting BATCH-event batches over HTTP from CONNECTIONS connections
// (autocannon) for DURATION seconds, on SQLite against the bare loops, or on PostgreSQL with one
// process and then two processes ingesting into one environment.
import { loadavg } from 'node:os';
import autocannon, { type Options } from 'autocannon';
import { startEnsign, storedEvents, type ServerInfo } from './ensign-process.js';
import { BATCH, CONNECTIONS, DURATION, event, migratedFile, serial } from './fixture.js';
import { freshPostgres, lockWaits, postgresCpu } from './postgres.js';
import { bareLoop, canonicalLoop } from './sqlite-loops.js';

/** Ingestion into the seeded server's prod environment through each address given (one load
 * generator of CONNECTIONS connections per process), all at once. */
async function ingest(
  server: ServerInfo,
  file: string,
  cpus: Array<() => Promise<number>>,
  addresses = [server.address],
) {
  // Bodies prepared beforehand, each with new ids, so the load generator only sends.
  const bodies = Array.from({ length: Math.ceil((DURATION * 80_000 * addresses.length) / BATCH) }, () =>
    JSON.stringify({ schemaVersion: 1, events: Array.from({ length: BATCH }, (_, i) => event(i + serial)) }),
  );
  let next = 0;
  for (const address of addresses) {
    const warm = await fetch(`${address}/api/v1/events/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.sdk.prod}`, 'content-type': 'application/json' },
      body: bodies[next++],
    });
    if (warm.status !== 200) throw new Error(`ingestion answered ${warm.status}: ${await warm.text()}`);
  }
  const cpuTotal = async () => (await Promise.all(cpus.map((cpu) => cpu()))).reduce((a, b) => a + b, 0);
  const cpuBefore = await cpuTotal();
  const databaseBefore = postgresCpu();
  const results = await Promise.all(
    addresses.map((address) =>
      autocannon({
        url: `${address}/api/v1/events/batch`,
        connections: CONNECTIONS,
        duration: DURATION,
        headers: { authorization: `Bearer ${server.sdk.prod}`, 'content-type': 'application/json' },
        requests: [
          { method: 'POST', setupRequest: (req: object) => ({ ...req, body: bodies[next++ % bodies.length] }) },
        ],
      } as unknown as Options),
    ),
  );
  const cpuUsed = (await cpuTotal()) - cpuBefore;
  const databaseUsed = postgresCpu() - databaseBefore;
  const stored = (await storedEvents(file)) - BATCH * addresses.length;
  if (next > bodies.length)
    console.warn('warning: bodies were reused (duplicates counted as requests, not as accepted events)');
  return {
    eventsPerSecond: stored / DURATION,
    requests: results.reduce((n, r) => n + r.requests.total, 0),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    stored,
    cpuPerEvent: cpuUsed / stored,
    /** PostgreSQL's CPU per event (0 on SQLite, which runs in the server process). */
    databaseCpuPerEvent: databaseUsed / stored,
  };
}

/** Ingestion on SQLite, compared with the canonical-row loop and the bare loop over Ensign's tables. */
export async function sqliteIngestionPhase() {
  const file = await migratedFile('ensign.db');
  const canonical = await canonicalLoop(200_000);
  console.log(
    `canonical-row better-sqlite3 loop: ${Math.round(canonical.perSecond).toLocaleString('en')} events/s, ${canonical.cpuPerEvent.toFixed(1)} µs of CPU per event (one row, primary key and timestamp index, transactions of ${BATCH})`,
  );
  const bare = await bareLoop(200_000);
  console.log(
    `bare better-sqlite3 loop over Ensign's tables: ${Math.round(bare.perSecond).toLocaleString('en')} events/s, ${bare.cpuPerEvent.toFixed(1)} µs of CPU per event (transactions of ${BATCH})`,
  );
  const { info, cpu, stop } = await startEnsign(file);
  const http = await ingest(info, file, [cpu]);
  await stop();
  console.log(
    `Ensign over HTTP (${CONNECTIONS} connections, ${BATCH}-event batches, ${DURATION} s): ${Math.round(http.eventsPerSecond).toLocaleString('en')} accepted events/s (${http.stored.toLocaleString('en')} stored, ${http.requests} requests, ${http.non2xx} non-2xx, p99 ${http.p99} ms, ${http.cpuPerEvent.toFixed(1)} µs of server CPU per event, all threads)`,
  );
  console.log(
    `ratio to the canonical-row loop ${(http.eventsPerSecond / canonical.perSecond).toFixed(2)} (bar ≥ 0.3; by CPU per event ${(canonical.cpuPerEvent / http.cpuPerEvent).toFixed(2)}); ratio to the bare loop over Ensign's tables ${(http.eventsPerSecond / bare.perSecond).toFixed(2)} (bar ≥ 0.5); absolute bar ≥ 30,000 events/s: ${http.eventsPerSecond >= 30_000 ? 'met' : 'not met'}; load average now ${loadavg()[0]!.toFixed(1)}`,
  );
}

/** Ingestion on fresh PostgreSQL databases of the server at `postgresUrl`: one process, then two. */
export async function postgresIngestionPhase(postgresUrl: string) {
  const database = await freshPostgres(postgresUrl);
  try {
    const { info, cpu, gc, stop } = await startEnsign(database.url);
    const oneWaits = lockWaits(database.url);
    // What the server allocates per event (garbage included; BENCH_HEAP_SAMPLING also writes where).
    await gc.start();
    const http = await ingest(info, database.url, [cpu]);
    const { allocated } = await gc.stop();
    const oneWaiting = await oneWaits();
    await stop();
    console.log(
      `Ensign on PostgreSQL over HTTP, one process (${CONNECTIONS} connections, ${BATCH}-event batches, ${DURATION} s): ${Math.round(http.eventsPerSecond).toLocaleString('en')} accepted events/s (bar ≥ 25,000; ${http.stored.toLocaleString('en')} stored, ${http.requests} requests, ${http.non2xx} non-2xx, p99 ${http.p99} ms, ${http.cpuPerEvent.toFixed(1)} µs of server CPU, ${(allocated / http.stored / 1024).toFixed(1)} KiB allocated by the server and ${http.databaseCpuPerEvent.toFixed(1)} µs of PostgreSQL CPU per event, ${(oneWaiting * 100).toFixed(0)} % of active queries waiting for a lock); load average now ${loadavg()[0]!.toFixed(1)}`,
    );
    // Two processes on one (new) database, both ingesting into the same environment.
    const second = await freshPostgres(postgresUrl, '_2');
    try {
      const first = await startEnsign(second.url);
      const joined = await startEnsign(second.url, true);
      const bothWaits = lockWaits(second.url);
      const both = await ingest(
        first.info,
        second.url,
        [first.cpu, joined.cpu],
        [first.info.address, joined.info.address],
      );
      const bothWaiting = await bothWaits();
      await Promise.all([first.stop(), joined.stop()]);
      console.log(
        `Ensign on PostgreSQL over HTTP, two processes into one environment (${CONNECTIONS} connections each): ${Math.round(both.eventsPerSecond).toLocaleString('en')} accepted events/s (${both.stored.toLocaleString('en')} stored, ${both.non2xx} non-2xx, p99 ${both.p99} ms, ${both.cpuPerEvent.toFixed(1)} µs of server CPU and ${both.databaseCpuPerEvent.toFixed(1)} µs of PostgreSQL CPU per event, ${(bothWaiting * 100).toFixed(0)} % of active queries waiting for a lock); ${(both.eventsPerSecond / http.eventsPerSecond).toFixed(2)}× one process (bar ≥ 1.6); load average now ${loadavg()[0]!.toFixed(1)}`,
      );
    } finally {
      await second.drop();
    }
  } finally {
    await database.drop();
  }
}

// npm run bench:telemetry — telemetry ingestion and insight queries on SQLite, in one run:
// 1. two bare better-sqlite3 loops in transactions of 100: the canonical-row loop (one row per event,
//    primary key and timestamp index: SQLite's own ceiling) and a loop inserting exactly the row
//    Ensign stores per event (since decision 0047 the event row, which is its own dedup key), without
//    rollups, into Ensign's table;
// 2. Ensign (its own process) ingesting 100-event batches over HTTP from 16 connections (autocannon);
//    accepted events per second are counted in the database afterwards;
// 3. hourly rollups equivalent to 10 million events (30 days, 50 flags, 4 variants, exposure and
//    outcome events, 200,000 subjects) seeded directly into the same database, then p95 latency of a
//    30-day day-grain query with 3 dimensions and 5 measures and of a 24-hour hour-grain query.
// BENCH_DURATION sets the ingestion seconds (default 10); BENCH_CPU_PROF=<dir> writes the server's CPU
// profile there; BENCH_ONLY=ingest|queries runs one half; BENCH_POSTGRES_URL=postgres://…/db makes
// the ingestion half run Ensign on a fresh database of that server instead of SQLite (no bare loop):
// one process, then two processes on another fresh database ingesting into one environment, each
// with the share of active queries found waiting for a lock, in BENCH_PG_ROUNDS alternating rounds
// (default 3), the bars read on the medians;
// BENCH_QUERY_RUNS sets the timed runs of each query (default 200).
// 4. export throughput (BENCH_ONLY=export runs only this): a destination with batches of 100 is paused
//    while BENCH_EXPORT_EVENTS (default 200,000) events are ingested, then set active; events/s
//    delivered to a local HTTPS receiver (export-receiver.ts) until the backlog is drained; then a
//    destination active while 8 clients ingest for BENCH_DURATION seconds, to show it keeps up.
// Each phase is a module of bench/telemetry/ (sqlite-loops, ingestion, queries, export), over the
// shared fixture (settings, scratch directory, events) and the Ensign process they start.
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { exportPhase } from './telemetry/export.js';
import { dir } from './telemetry/fixture.js';
import { postgresIngestionPhase, sqliteIngestionPhase } from './telemetry/ingestion.js';
import { queriesPhase } from './telemetry/queries.js';

const ONLY = process.env.BENCH_ONLY;
/** Timed runs of each query: 200 make a p95 of the 10 slowest, where 40 made it of 2. */
const QUERY_RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 200);
const POSTGRES = process.env.BENCH_POSTGRES_URL;
try {
  console.log(`load average at start ${loadavg()[0]!.toFixed(1)} (2 CPUs)`);
  if (ONLY === 'export' || ONLY === undefined) await exportPhase(Number(process.env.BENCH_EXPORT_EVENTS ?? 200_000));
  if (ONLY === 'export') {
    // Only the export phase.
  } else if (ONLY !== 'queries' && POSTGRES) {
    await postgresIngestionPhase(POSTGRES);
  } else if (ONLY !== 'queries') {
    await sqliteIngestionPhase();
  }
  if (ONLY !== 'ingest' && ONLY !== 'export') await queriesPhase(QUERY_RUNS);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Phase 1's reference points: what better-sqlite3 itself stores per second and per CPU-second, in
// transactions of BATCH, first in a canonical table of its own, then into Ensign's event table.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import { BATCH, dir, event, migratedFile, now } from './fixture.js';

type BenchEvent = ReturnType<typeof event>;

/** Runs `insert` over the events, BATCH at a time, timing it and counting the CPU it took. */
function timedInserts(db: SQLite.Database, events: BenchEvent[], insert: (slice: BenchEvent[]) => void) {
  const total = events.length;
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < total; i += BATCH) insert(events.slice(i, i + BATCH));
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - start) / 1000;
  db.close();
  return { perSecond: total / seconds, cpuPerEvent: (used.user + used.system) / total };
}

/** The canonical-row loop (issue 24): one row per event in a table of its own with a primary key
 * and a timestamp index, WAL, synchronous=NORMAL, 100 per transaction: what SQLite itself can store
 * on this machine, whatever Ensign's layout. */
export async function canonicalLoop(total: number) {
  const db = new SQLite(join(dir, 'canonical.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE events (id TEXT PRIMARY KEY, kind TEXT NOT NULL, ts INTEGER NOT NULL, received_at INTEGER NOT NULL, targeting_key TEXT, flag_key TEXT, variant TEXT, reason TEXT)',
  );
  db.exec('CREATE INDEX events_ts ON events (ts)');
  const row = db.prepare(
    'INSERT INTO events (id, kind, ts, received_at, targeting_key, flag_key, variant, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const events = Array.from({ length: total }, (_, i) => event(i));
  const insert = db.transaction((slice: ReturnType<typeof event>[]) => {
    for (const e of slice)
      row.run(e.id, e.kind, Date.parse(e.timestamp), now, e.targetingKey, e.flagKey, e.variant, e.reason);
  });
  return timedInserts(db, events, insert);
}

/** The bare loop: prepared inserts of the same rows, 100 per transaction. */
export async function bareLoop(total: number) {
  const db = new SQLite(await migratedFile('bare.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Since decision 0047 an event is one row, deduplicated by the table's primary key.
  const row = db.prepare(
    'INSERT INTO telemetry_events (env_id, id, app_id, kind, ts, received_at, targeting_key, flag_key, variant, value, reason, experiment_id, iteration_id, iteration_revision, metric_key, metric_value, attributes, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, NULL, NULL, NULL, NULL, NULL, ?) ON CONFLICT DO NOTHING',
  );
  const events = Array.from({ length: total }, (_, i) => event(i));
  const insert = db.transaction((slice: ReturnType<typeof event>[]) => {
    for (const e of slice)
      row.run(
        'env_bare',
        e.id,
        'app_bare',
        e.kind,
        Date.parse(e.timestamp),
        now,
        e.targetingKey,
        e.flagKey,
        e.variant,
        e.reason,
        'x'.repeat(43),
      );
  });
  return timedInserts(db, events, insert);
}

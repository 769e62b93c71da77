// Storage-only ingestion ceiling of one engine: validated 100-event batches stored with storeBatch
// (events, dedup keys, rollups, watermark) by 8 concurrent writers, no HTTP. Usage:
//   npx tsx bench/telemetry-storage.ts postgres://postgres@127.0.0.1:5432/test   (or sqlite:///tmp/x.db)
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createDb } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { validateItem } from '../src/modules/telemetry/ingestion/event-validation.js';
import { storeBatch } from '../src/modules/telemetry/ingestion/event-store.repository.js';
const url = process.argv[2]!;
const schema = 'bench_' + process.pid;
let h: ReturnType<typeof createDb>;
if (url.startsWith('postgres')) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  h = createDb(url, { pgSchema: schema });
} else h = createDb(url);
await migrateToLatest(h.db);
const now = Date.now();
let serial = 0;
const ev = (i: number) => ({
  id: `ev-${++serial}`,
  kind: 'exposure',
  timestamp: new Date(now - (i % 600) * 1000).toISOString(),
  targetingKey: `user-${i % 200000}`,
  flagKey: `flag-${i % 50}`,
  variant: `v${i % 4}`,
  reason: 'SPLIT',
});
const batches = Array.from({ length: 200 }, (_, b) =>
  Array.from({ length: 100 }, (_, i) => validateItem(ev(b * 100 + i), i, now) as any),
);
let done = 0;
const start = performance.now();
// 8 concurrent writers, as several requests in flight would be.
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (done < batches.length) {
      const b = batches[done++]!;
      await storeBatch(h.db, { envId: 'env_x', appId: 'app_x', receivedAt: now, events: b });
    }
  }),
);
const s = (performance.now() - start) / 1000;
console.log(url.split(':')[0], 'storeBatch events/s', Math.round(20000 / s));
await h.close();
if (url.startsWith('postgres')) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`DROP SCHEMA ${schema} CASCADE`);
  await c.end();
}
process.exit(0);

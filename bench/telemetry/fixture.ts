// What every phase of the telemetry bench shares: the load's settings, one scratch directory
// (removed at the end of the run), and the events it sends, each with an id of its own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../../src/db/create-db.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = 16;
export const BATCH = 100;
export const HOUR = 3_600_000;
export const dir = mkdtempSync(join(tmpdir(), 'ensign-bench-telemetry-'));
export const now = Date.now();

/** How many events were made so far: a new batch offsets its indexes by it. */
export let serial = 0;
export function event(i: number) {
  return {
    id: `ev-${process.pid}-${++serial}`,
    kind: 'exposure',
    timestamp: new Date(now - (i % 600) * 1000).toISOString(),
    targetingKey: `user-${i % 200_000}`,
    flagKey: `flag-${i % 50}`,
    variant: `v${i % 4}`,
    reason: 'SPLIT',
  };
}

export async function migratedFile(name: string) {
  const file = join(dir, name);
  const handle = createDb(`sqlite://${file}`);
  await migrateToLatest(handle.db);
  await handle.close();
  return file;
}

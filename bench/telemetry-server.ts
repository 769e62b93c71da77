// The Ensign process of `npm run bench:telemetry`: a server on a SQLite file or PostgreSQL (argv[2]) with the
// telemetry and insights rate limits out of the way, an app with keys, and its port and ids sent to
// the parent over IPC.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { getHeapStatistics, GCProfiler } from 'node:v8';
import { startServer } from '../src/main.js';
import { loadConfig } from '../src/config.js';

// argv[2]: a SQLite file, or a postgres:// URL.
const target = process.argv[2]!;
const config = loadConfig({
  ...process.env,
  ENSIGN_DATABASE_URL: target.startsWith('postgres') ? target : `sqlite://${target}`,
  ENSIGN_DATA_DIR: process.argv[3],
  // Every process on one database shares one secret (decision 0038): the two-process run starts a
  // second server with a data directory of its own.
  ENSIGN_SECRET: process.env.ENSIGN_SECRET ?? 'bench-secret-shared-by-every-bench-process',
  ENSIGN_PORT: '0',
  ENSIGN_LOG_LEVEL: 'warn',
  ENSIGN_TELEMETRY_EVENTS_PER_SECOND: '1000000000',
  ENSIGN_INSIGHTS_QUERIES_PER_MINUTE: '1000000',
});
const { app, address } = await startServer(config);

/** An account, an app with keys, and their ids: what the parent's load needs. */
async function seed() {
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/cli-token',
    payload: { flow: 'signUp', email: 'bench@example.com', password: 'bench password 1' },
  });
  const token = login.json().token as string;
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'bench-app-0001' },
    payload: { name: 'Bench', slug: 'bench' },
  });
  const body = created.json();
  const envs = Object.fromEntries(body.environments.map((e: { slug: string; id: string }) => [e.slug, e.id]));
  const sdk = Object.fromEntries(body.keys.map((k: { env: string; token: string }) => [k.env, k.token]));
  return { token, appId: body.app.id, envs, sdk };
}

// argv[4] 'join': a further process on a database the first one seeded; it serves the same keys.
process.send!({ type: 'listening', address, ...(process.argv[4] === 'join' ? {} : await seed()) });
/** What the garbage collector saw between 'gc-start' and 'gc-stop': bytes allocated (heap used before
 * each collection less heap used after the one before), bytes promoted to the old generation by
 * scavenges, and the collections by type with their pause time. Load does not move these figures. */
let profiler: { gc: GCProfiler; usedAtStart: number } | null = null;
function gcFigures() {
  const { gc, usedAtStart } = profiler!;
  profiler = null;
  const { statistics } = gc.stop() as unknown as {
    statistics: { gcType: string; cost: number; beforeGC: HeapAt; afterGC: HeapAt }[];
  };
  const space = (at: HeapAt, name: string) => at.heapSpaceStatistics.find((s) => s.spaceName === name)!;
  const oldUsed = (at: HeapAt) => space(at, 'old_space').spaceUsedSize;
  let youngMin = Infinity;
  let youngMax = 0;
  let allocated = 0;
  let promoted = 0;
  let usedAfterLast = usedAtStart;
  const byType: Record<string, { count: number; ms: number }> = {};
  for (const s of statistics) {
    allocated += s.beforeGC.heapStatistics.usedHeapSize - usedAfterLast;
    usedAfterLast = s.afterGC.heapStatistics.usedHeapSize;
    if (s.gcType === 'Scavenge') promoted += Math.max(0, oldUsed(s.afterGC) - oldUsed(s.beforeGC));
    const young = space(s.afterGC, 'new_space').spaceSize;
    youngMin = Math.min(youngMin, young);
    youngMax = Math.max(youngMax, young);
    const entry = (byType[s.gcType] ??= { count: 0, ms: 0 });
    entry.count++;
    entry.ms += s.cost / 1000;
  }
  allocated += getHeapStatistics().used_heap_size - usedAfterLast;
  return { allocated, promoted, byType, young: statistics.length > 0 ? [youngMin, youngMax] : [] };
}
// BENCH_HEAP_SAMPLING=<prefix>: a sampling heap profile of each measured series, garbage included
// (<prefix>-1.heapprofile, -2, …; open in Chrome's DevTools, Memory tab), to see what allocates.
const sampling = process.env.BENCH_HEAP_SAMPLING;
let session: Session | null = null;
let profiles = 0;
function startSampling() {
  session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as object);
}
function stopSampling() {
  session!.post('HeapProfiler.stopSampling', (err, result) => {
    if (!err) writeFileSync(`${sampling}-${++profiles}.heapprofile`, JSON.stringify(result.profile));
    session!.disconnect();
  });
}

interface HeapAt {
  heapStatistics: { usedHeapSize: number };
  heapSpaceStatistics: { spaceName: string; spaceUsedSize: number; spaceSize: number }[];
}

process.on('message', (m: { type: string }) => {
  if (m.type === 'cpu') process.send!({ type: 'cpu', usage: process.cpuUsage() });
  if (m.type === 'gc-start') {
    profiler = { gc: new GCProfiler(), usedAtStart: getHeapStatistics().used_heap_size };
    profiler.gc.start();
    if (sampling) startSampling();
    process.send!({ type: 'gc-started' });
  }
  if (m.type === 'gc-stop') {
    const figures = gcFigures();
    if (sampling) stopSampling();
    process.send!({ type: 'gc', figures });
  }
  if (m.type === 'stop') void app.close().then(() => process.exit(0));
});

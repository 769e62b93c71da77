// A benchmark server process: Ensign built in-process (buildApp) on the benchmark's SQLite database,
// listening on a free port. Talks to the parent over IPC: reports its port, answers memory probes.
import { buildApp } from '../src/app.js';
import { createDb } from '../src/db/create-db.js';
import { benchConfig } from './delivery-fixture.js';

const [url, lane = 'lane-on'] = process.argv.slice(2);
if (!url || (lane !== 'lane-on' && lane !== 'lane-off')) throw new Error('usage: delivery-server.ts <database url> [lane-on|lane-off]');
const handle = createDb(url);
const app = await buildApp({ db: handle.db, dbHandle: handle, config: { ...benchConfig(), fastLane: lane === 'lane-on' } });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
// Resident memory right after start, after a full GC (issue 24: at most 120 MiB).
(globalThis as { gc?: () => void }).gc?.();
const started = process.memoryUsage();

process.on('message', (message: { type: string }) => {
  if (message.type === 'memory') {
    (globalThis as { gc?: () => void }).gc?.();
    // maxRSS: the process's peak resident set so far, in KiB (issue 24: at most 180 MiB).
    process.send!({ type: 'memory', ...process.memoryUsage(), startedRss: started.rss, startedHeapUsed: started.heapUsed, peakRss: process.resourceUsage().maxRSS * 1024 });
  }
  if (message.type === 'cpu') process.send!({ type: 'cpu', ...process.cpuUsage() });
  if (message.type === 'stop') void app.close().then(() => handle.close()).then(() => process.exit(0));
});
process.send!({ type: 'listening', port: Number(new URL(address).port) });

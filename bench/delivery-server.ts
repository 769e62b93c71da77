// A benchmark server process: Ensign started as `npm start` starts it (startServer: migrations
// checked, app built, startup memory released, listening) on the benchmark's SQLite database and a
// free port, with the benchmark's settings. Talks to the parent over IPC: reports its port, answers
// memory probes.
import { dirname } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/main.js';
import { benchConfig } from './bench-config.js';

const [url, lane = 'lane-on'] = process.argv.slice(2);
if (!url || (lane !== 'lane-on' && lane !== 'lane-off'))
  throw new Error('usage: delivery-server.ts <database url> [lane-on|lane-off]');
const settings = benchConfig();
const environment = {
  ENSIGN_DATABASE_URL: url,
  ENSIGN_DATA_DIR: dirname(url.replace('sqlite://', '')),
  ENSIGN_PORT: '0',
  ENSIGN_SECRET: settings.secret,
};
const { app, handle, address } = await startServer({
  ...loadConfig(environment),
  ...settings,
  fastLane: lane === 'lane-on',
});
// Resident memory right after start, after a full GC (issue 24: at most 120 MiB).
(globalThis as { gc?: () => void }).gc?.();
const started = process.memoryUsage();

process.on('message', (message: { type: string }) => {
  if (message.type === 'memory') {
    (globalThis as { gc?: () => void }).gc?.();
    // maxRSS: the process's peak resident set so far, in KiB (issue 24: at most 180 MiB).
    process.send!({
      type: 'memory',
      ...process.memoryUsage(),
      startedRss: started.rss,
      startedHeapUsed: started.heapUsed,
      peakRss: process.resourceUsage().maxRSS * 1024,
    });
  }
  if (message.type === 'cpu') process.send!({ type: 'cpu', ...process.cpuUsage() });
  if (message.type === 'stop')
    void app
      .close()
      .then(() => handle.close())
      .then(() => process.exit(0));
});
process.send!({ type: 'listening', port: Number(new URL(address).port) });

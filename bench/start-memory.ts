// Resident memory right after start, several starts in a row: RSS moves by a few MiB between
// identical starts, so one reading (what `npm run bench:delivery` prints) can mislead. Seeds the
// delivery benchmark's database (100 environments × 200 flags), then starts the compiled
// bench/delivery-server.ts (Ensign through startServer, as `npm start` runs it) `starts` times and
// prints each start's RSS and heap after a full GC, then the median.
// Usage: tsx bench/start-memory.ts [starts=5]; BENCH_COMPILED=<dir> measures an earlier build as it is.
import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createBenchDatabase } from './delivery-fixture.js';
import { compileEntries } from './compiled-entries.js';

const starts = Number(process.argv[2] ?? 5);
const root = new URL('..', import.meta.url).pathname;
const compiled = process.env.BENCH_COMPILED ?? join(root, 'dist', 'bench-delivery');
if (process.env.BENCH_COMPILED === undefined) compileEntries('bench-delivery', ['bench/delivery-server.ts']);

const MiB = 1024 * 1024;
const { url } = await createBenchDatabase(100);
const readings: number[] = [];
for (let i = 0; i < starts; i++) {
  const startedAt = Date.now();
  const child = fork(join(compiled, 'bench', 'delivery-server.js'), [url, 'lane-on'], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = (type: string) =>
    new Promise<Record<string, number>>((resolve) =>
      child.on('message', (m: { type: string }) => {
        if (m.type === type) resolve(m as unknown as Record<string, number>);
      }),
    );
  await next('listening');
  const ms = Date.now() - startedAt;
  child.send({ type: 'memory' });
  const memory = await next('memory');
  readings.push(memory.startedRss!);
  console.log(
    `start ${i + 1}: listening after ${ms} ms, RSS ${(memory.startedRss! / MiB).toFixed(1)} MiB, heap used ${(memory.startedHeapUsed! / MiB).toFixed(1)} MiB`,
  );
  child.send({ type: 'stop' });
  await new Promise((resolve) => child.once('exit', resolve));
}
readings.sort((a, b) => a - b);
console.log(
  `RSS right after start over ${starts} starts: median ${(readings[readings.length >> 1]! / MiB).toFixed(1)} MiB, ` +
    `${(readings[0]! / MiB).toFixed(1)}–${(readings.at(-1)! / MiB).toFixed(1)} MiB (bar ≤ 120 MiB)`,
);
rmSync(dirname(url.replace('sqlite://', '')), { recursive: true, force: true });

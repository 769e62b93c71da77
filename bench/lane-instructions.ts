// Instructions per request of the fast lane, for a machine too loaded for timings: seeds one
// environment of 200 flags, starts Ensign (bench/delivery-server.ts, compiled by tsc as
// `npm run bench:delivery` compiles it, so that it starts without tsx) under `valgrind --tool=callgrind`, sends sequential requests over one
// keep-alive connection from this process (outside valgrind) and reads the server's instruction
// counts. `304-bare` measures bench/bare-server.ts answering 304s alike.
//
// With one count (the way to use it): one process; after `count` warm-up requests the counter is
// read (`callgrind_control -e Ir`), `count` requests are sent, the counter is read again, and the
// server is then left idle for as long as those requests took and read a third time. Instructions
// per request = (window − idle) / count: start-up and warm-up are outside the window, and what
// timers do meanwhile (sync-count flushes, config polls, jobs, V8's idle tasks), which grows with
// wall time rather than with requests, is taken out by the idle window of the same length. V8 runs
// with --single-threaded there, so its garbage collection and compilation happen on the main thread
// as part of the requests that cause them.
// With two or more counts (the first version): one process per count, each total printed; the
// difference of two totals over the difference of their counts is the instructions of one request,
// timers included, which made two runs of one build differ by up to 27 % on a loaded machine.
// Usage: tsx bench/lane-instructions.ts <304|304-bare|evaluate> <count>...
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { request, Agent } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBenchDatabase } from './delivery-fixture.js';
import { compileEntries } from './compiled-entries.js';

const [kind = '304', ...counts] = process.argv.slice(2);
const root = new URL('..', import.meta.url).pathname;
// BENCH_COMPILED=<dir>: measure a build made before (say, of the code before a change) as it is.
const compiled = process.env.BENCH_COMPILED ?? join(root, 'dist', 'bench-delivery');
const bare = kind === '304-bare';
const bundle = join(compiled, 'bench', bare ? 'bare-server.js' : 'delivery-server.js');
if (process.env.BENCH_COMPILED === undefined)
  compileEntries('bench-delivery', ['bench/delivery-server.ts', 'bench/bare-server.ts']);

function send(
  agent: Agent,
  port: number,
  key: string,
  etag: string | undefined,
): Promise<{ status: number; etag: string | undefined }> {
  return new Promise((resolve, reject) => {
    const post = kind === 'evaluate';
    const body = JSON.stringify({ flagKey: 'flag-007', context: { targetingKey: 'user-1', plan: 'pro' } });
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (post)
      Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    else if (etag) headers['if-none-match'] = etag;
    const req = request(
      {
        agent,
        port,
        host: '127.0.0.1',
        method: post ? 'POST' : 'GET',
        path: post ? '/api/v1/evaluate' : '/api/v1/config',
        headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, etag: res.headers.etag }));
      },
    );
    req.on('error', reject);
    req.end(post ? body : undefined);
  });
}

console.error('seeding');
const { url, environments } = await createBenchDatabase(1);
const bodyFile = join(new URL(url).pathname, '..', 'body.json');
writeFileSync(bodyFile, '{}');
console.error('seeded', url);
const key = environments[0]!.sdk;

function start(out: string): { child: ChildProcess; log: () => string; port: Promise<number> } {
  // In the one-process mode V8 runs without background threads (--single-threaded: no concurrent
  // marking or compilation), whose share of the window otherwise moved with the machine's load.
  const v8 = counts.length === 1 ? ['--single-threaded'] : [];
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      'node',
      ...v8,
      bundle,
      ...(bare ? [bodyFile, '"bare"'] : [url]),
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  child.on('exit', (code) => {
    if (code !== 0) console.error(log);
  });
  const port = new Promise<number>((resolve) =>
    child.on('message', (m: { type: string; port: number }) => {
      if (m.type === 'listening') resolve(m.port);
    }),
  );
  return { child, log: () => log, port };
}

async function sendMany(
  agent: Agent,
  port: number,
  count: number,
  etag: string | undefined,
): Promise<string | undefined> {
  for (let i = 0; i < count; i++) {
    const answer = await send(agent, port, key, etag);
    if (answer.status !== (kind === 'evaluate' ? 200 : 304)) throw new Error(`status ${answer.status}`);
    etag = answer.etag ?? etag;
  }
  return etag;
}

async function stop(child: ChildProcess) {
  child.send({ type: 'stop' });
  await new Promise((resolve) => child.on('exit', resolve));
}

/** The process's instruction count so far (all threads). */
function instructionsOf(pid: number): number {
  const text = execFileSync('callgrind_control', ['-e', 'Ir', String(pid)], { encoding: 'utf8' });
  return [...text.matchAll(/Th\s+\d+\s+([\d,]+)/g)].reduce((sum, m) => sum + Number(m[1]!.replaceAll(',', '')), 0);
}

const out = `/tmp/ensign-lane-instructions.${process.pid}.out`;
if (counts.length === 1) {
  const count = Number(counts[0]);
  const { child, port: listening } = start(out);
  const port = await listening;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { etag } = await send(agent, port, key, undefined);
  const warm = await sendMany(agent, port, count, etag);
  const before = instructionsOf(child.pid!);
  const startedAt = performance.now();
  await sendMany(agent, port, count, warm);
  const took = performance.now() - startedAt;
  const after = instructionsOf(child.pid!);
  await new Promise((resolve) => setTimeout(resolve, took));
  const idle = instructionsOf(child.pid!) - after;
  agent.destroy();
  await stop(child);
  const perRequest = (after - before - idle) / count;
  console.log(
    `${kind} requests=${count} window=${after - before} idle=${idle} (${(took / 1000).toFixed(1)} s each) instructions/request=${Math.round(perRequest)} (without the idle correction ${Math.round((after - before) / count)})`,
  );
} else
  for (const count of counts.map(Number)) {
    const { child, log, port: listening } = start(out);
    const port = await listening;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const { etag } = await send(agent, port, key, undefined);
    await sendMany(agent, port, count, etag);
    agent.destroy();
    await stop(child);
    const collected = /Collected : (\d+)/.exec(log())?.[1];
    console.log(`${kind} requests=${count} instructions=${collected}`);
  }
if (process.env.KEEP_CALLGRIND) console.log(`kept ${out}`);
else rmSync(out, { force: true });
rmSync(join(new URL(url).pathname, '..'), { force: true, recursive: true });

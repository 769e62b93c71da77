// npm run bench:delivery — GET /api/v1/config (200s, then 304s with If-None-Match) at 64 connections
// against Ensign with its fast lane on, the same Ensign with the lane off (Fastify answers), and a
// bare node:http server answering the same bytes and ETag, in one run. The lane is kept only while
// it beats Fastify by the bar of decision 0055, which this prints too. Each server runs in a process of its own (autocannon would otherwise share its event loop).
// Prints requests per second, p99 latency, the ratios, and the RSS of a server holding 100
// environments of 200 flags. BENCH_DURATION sets the seconds per measurement (default 10).
// Both servers run compiled, as `npm start` runs Ensign: under tsx a loader thread and the
// transpiler would add to the memory measured.
import { fork, type ChildProcess } from 'node:child_process';
import { openSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { compileEntries } from './compiled-entries.js';
import { createBenchDatabase, FLAGS_PER_ENVIRONMENT } from './delivery-fixture.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
const ROUNDS = 2;
const CONNECTIONS = 64;
const ENVIRONMENTS = 100;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'bench-delivery');

/** Compiles the two server entry points and what they import. */
function compileServers() {
  compileEntries('bench-delivery', ['bench/delivery-server.ts', 'bench/bare-server.ts']);
}

interface Child {
  process: ChildProcess;
  base: string;
  request(message: object, reply: string): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

async function start(script: string, args: string[], logFile?: string): Promise<Child> {
  const out = logFile ? openSync(logFile, 'a') : 'ignore';
  // BENCH_CPU_PROF=<dir> writes Ensign's CPU profile there; BENCH_SERVER_FLAGS passes Node flags to
  // Ensign (e.g. --perf-basic-prof for perf), as in bench:evaluate.
  const profile =
    process.env.BENCH_CPU_PROF && script === 'delivery-server.js'
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
  const flags =
    script === 'delivery-server.js'
      ? [...profile, ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [])]
      : [];
  const child = fork(join(compiled, 'bench', script), args, {
    execArgv: ['--expose-gc', ...flags],
    stdio: ['ignore', out, 'inherit', 'ipc'],
  });
  const next = (type: string) =>
    new Promise<Record<string, number>>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${script} exited (${code})`));
      const onMessage = (m: { type: string }) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m as unknown as Record<string, number>);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const { port } = await next('listening');
  return {
    process: child,
    base: `http://127.0.0.1:${port}`,
    request(message, reply) {
      const answer = next(reply);
      child.send(message);
      return answer;
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

interface Target {
  server: Child;
  url: string;
  headers: Record<string, string>;
}

interface Figures {
  rps: number;
  p99: number;
  /** Server CPU time per request: steadier than req/s on a machine shared with other work. */
  cpuUs: number;
}

type Round = Result & { cpuUs: number };

async function cpuOf(server: Child): Promise<number> {
  const usage = await server.request({ type: 'cpu' }, 'cpu');
  return usage.user! + usage.system!;
}

async function load(target: Target, expected: number, duration: number): Promise<Round> {
  const cpuBefore = await cpuOf(target.server);
  const result = await autocannon({ url: target.url, connections: CONNECTIONS, duration, headers: target.headers });
  const cpuUs = (await cpuOf(target.server)) - cpuBefore;
  const unexpected = Object.entries(result.statusCodeStats).filter(([code]) => Number(code) !== expected);
  if (unexpected.length > 0 || result.errors > 0)
    throw new Error(
      `unexpected answers from ${target.url}: ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors`,
    );
  return { ...result, cpuUs };
}

/**
 * Warms every target up, then measures them in alternating rounds (half the duration each, twice),
 * so a change in the machine's background load during the run affects them alike. Requests per
 * second over all rounds; p99 is the worse round's.
 */
async function compare<K extends string>(targets: Record<K, Target>, expected: number): Promise<Record<K, Figures>> {
  const names = Object.keys(targets) as K[];
  for (const name of names) await load(targets[name], expected, WARMUP);
  const rounds = Object.fromEntries(names.map((n) => [n, [] as Round[]])) as Record<K, Round[]>;
  for (let i = 0; i < ROUNDS; i++)
    for (const name of names) rounds[name].push(await load(targets[name], expected, DURATION / ROUNDS));
  const sum = (results: Round[], of: (r: Round) => number) => results.reduce((n, r) => n + of(r), 0);
  const figures = (results: Round[]): Figures => ({
    rps: sum(results, (r) => r.requests.total) / sum(results, (r) => r.duration),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    cpuUs: sum(results, (r) => r.cpuUs) / sum(results, (r) => r.requests.total),
  });
  return Object.fromEntries(names.map((n) => [n, figures(rounds[n])])) as Record<K, Figures>;
}

/**
 * Decision 0055 (amended): the lane stays while it saves at least this share of Fastify's CPU per
 * request on each lane route's most frequent answer: here the 304. The 200 of a 100 KB document is
 * printed for information (writing the body, which the lane does not touch, is most of its cost).
 */
const LANE_CPU_SAVING_BAR = 0.1;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const mark = (ok: boolean) => (ok ? 'meets' : 'MISSES');

async function main() {
  console.log('Compiling the servers…');
  compileServers();
  console.log(`Seeding ${ENVIRONMENTS} environments of ${FLAGS_PER_ENVIRONMENT} flags on SQLite…`);
  const { url, environments } = await createBenchDatabase(ENVIRONMENTS);
  const logFile = join(dirname(url.replace('sqlite://', '')), 'server.log');
  const ensign = await start('delivery-server.js', [url, 'lane-on'], logFile);
  const laneOff = await start('delivery-server.js', [url, 'lane-off'], logFile);
  const auth = { authorization: `Bearer ${environments[0]!.sdk}` };
  const first = await fetch(`${ensign.base}/api/v1/config`, { headers: auth });
  const body = Buffer.from(await first.arrayBuffer());
  const etag = first.headers.get('etag')!;
  const bodyFile = join(dirname(logFile), 'body.json');
  writeFileSync(bodyFile, body);
  const bare = await start('bare-server.js', [bodyFile, etag]);
  console.log(
    `Document: ${body.length} bytes, ETag ${etag}; ${CONNECTIONS} connections, ${DURATION} s per measurement (${ROUNDS} alternating rounds) after ${WARMUP} s of warm-up.\n`,
  );

  const rows: { name: string; bar: number; bare: Figures; ensign: Figures; laneOff: Figures }[] = [];
  // Bars of issue 8 (issue 3 asked 0.6 and 0.65).
  const measurements = [
    ['200 (full document)', {}, 200, 0.9],
    ['304 (If-None-Match)', { 'if-none-match': etag }, 304, 0.8],
  ] as const;
  // BENCH_ONLY=304 measures the 304s alone (profiling the revalidation path).
  for (const [name, headers, status, bar] of measurements.filter(
    ([n]) => !process.env.BENCH_ONLY || n.startsWith(process.env.BENCH_ONLY),
  )) {
    const figures = await compare(
      {
        bare: { server: bare, url: `${bare.base}/api/v1/config`, headers },
        ensign: { server: ensign, url: `${ensign.base}/api/v1/config`, headers: { ...auth, ...headers } },
        laneOff: { server: laneOff, url: `${laneOff.base}/api/v1/config`, headers: { ...auth, ...headers } },
      },
      status,
    );
    rows.push({ name, bar, ...figures });
  }
  await bare.stop();
  await laneOff.stop();

  // Every environment's document in memory, then the server's resident memory after a full GC.
  for (const env of environments) {
    const res = await fetch(`${ensign.base}/api/v1/config`, { headers: { authorization: `Bearer ${env.sdk}` } });
    if (res.status !== 200) throw new Error(`environment ${env.target.envId}: ${res.status}`);
    await res.arrayBuffer();
  }
  const memory = await ensign.request({ type: 'memory' }, 'memory');
  await ensign.stop();

  console.log(
    '| Measurement | Ensign req/s | bare req/s | ratio (bar) | Ensign p99 | bare p99 | CPU µs/request Ensign / bare |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const ratio = r.ensign.rps / r.bare.rps;
    console.log(
      `| ${r.name} | ${Math.round(r.ensign.rps)} | ${Math.round(r.bare.rps)} | ${ratio.toFixed(2)} (≥ ${r.bar}: ${mark(ratio >= r.bar)}) | ${r.ensign.p99} ms (< 25: ${mark(r.ensign.p99 < 25)}) | ${r.bare.p99} ms | ${r.ensign.cpuUs.toFixed(1)} / ${r.bare.cpuUs.toFixed(1)} |`,
    );
  }
  console.log(
    "\nThe fast lane, on and off (decision 0055: on a route's most frequent answer, the 304, the lane saves at least " +
      `${LANE_CPU_SAVING_BAR * 100} % of Fastify's server CPU per request, or the route leaves the lane):\n`,
  );
  console.log(
    '| Measurement | lane on req/s | lane off req/s | req/s gain | CPU µs/request on / off | CPU saved (bar) | p99 on / off |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const saved = 1 - r.ensign.cpuUs / r.laneOff.cpuUs;
    const verdict = r.name.startsWith('304')
      ? `≥ ${LANE_CPU_SAVING_BAR * 100} %: ${mark(saved >= LANE_CPU_SAVING_BAR)}`
      : 'no bar';
    console.log(
      `| ${r.name} | ${Math.round(r.ensign.rps)} | ${Math.round(r.laneOff.rps)} | ${(r.ensign.rps / r.laneOff.rps).toFixed(2)}× | ` +
        `${r.ensign.cpuUs.toFixed(1)} / ${r.laneOff.cpuUs.toFixed(1)} | ${(saved * 100).toFixed(0)} % (${verdict}) | ${r.ensign.p99} / ${r.laneOff.p99} ms |`,
    );
  }
  const MiB = 1024 * 1024;
  console.log(
    `\nServer RSS right after start: ${mb(memory.startedRss!)} (≤ 120 MiB: ${mark(memory.startedRss! <= 120 * MiB)}), heap used ${mb(memory.startedHeapUsed!)}; peak RSS during the run: ${mb(memory.peakRss!)} (≤ 180 MiB: ${mark(memory.peakRss! <= 180 * MiB)}).`,
  );
  console.log(
    `Server RSS with ${ENVIRONMENTS} environments × ${FLAGS_PER_ENVIRONMENT} flags loaded, after the load runs: ${mb(memory.rss!)} (< 200 MB: ${mark(memory.rss! < 200 * MiB)}); heap used ${mb(memory.heapUsed!)}.`,
  );
  console.log(`Server log: ${logFile}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

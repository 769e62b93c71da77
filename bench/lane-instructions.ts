// Instructions per request of the fast lane, for a machine too loaded for timings: seeds one
// environment of 200 flags, starts Ensign (bench/delivery-server.ts, compiled by tsc as
// `npm run bench:delivery` compiles it, so that it starts without tsx) under `valgrind --tool=callgrind`, sends `count` sequential requests over one
// keep-alive connection from this process (outside valgrind) and prints the server's instruction
// total. Run with two counts: the difference divided by the difference of counts is the
// instructions of one request. `304-bare` measures bench/bare-server.ts answering 304s alike.
// Usage: tsx bench/lane-instructions.ts <304|304-bare|evaluate> <count>...
import { execFileSync, spawn } from 'node:child_process';
import { request, Agent } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBenchDatabase } from './delivery-fixture.js';

const [kind = '304', ...counts] = process.argv.slice(2);
const root = new URL('..', import.meta.url).pathname;
// BENCH_COMPILED=<dir>: measure a build made before (say, of the code before a change) as it is.
const compiled = process.env.BENCH_COMPILED ?? join(root, 'dist', 'bench-delivery');
const bare = kind === '304-bare';
const bundle = join(compiled, 'bench', bare ? 'bare-server.js' : 'delivery-server.js');
if (process.env.BENCH_COMPILED === undefined) try {
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), [join(root, 'bench/delivery-server.ts'), join(root, 'bench/bare-server.ts'), '--outDir', compiled, '--rootDir', root, '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--esModuleInterop', '--types', 'node'], { stdio: 'pipe' });
} catch {
  /* emitted anyway (type errors elsewhere do not stop it) */
}

function send(agent: Agent, port: number, key: string, etag: string | undefined): Promise<{ status: number; etag: string | undefined }> {
  return new Promise((resolve, reject) => {
    const post = kind === 'evaluate';
    const body = JSON.stringify({ flagKey: 'flag-007', context: { targetingKey: 'user-1', plan: 'pro' } });
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (post) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    else if (etag) headers['if-none-match'] = etag;
    const req = request({ agent, port, host: '127.0.0.1', method: post ? 'POST' : 'GET', path: post ? '/api/v1/evaluate' : '/api/v1/config', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, etag: res.headers.etag }));
    });
    req.on('error', reject);
    req.end(post ? body : undefined);
  });
}

console.error("seeding");
const { url, environments } = await createBenchDatabase(1);
const bodyFile = join(new URL(url).pathname, '..', 'body.json');
writeFileSync(bodyFile, '{}');
console.error("seeded", url);
const key = environments[0]!.sdk;
for (const count of counts.map(Number)) {
  const out = `/tmp/ensign-lane-instructions.${process.pid}.out`;
  const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, 'node', bundle, ...(bare ? [bodyFile, '"bare"'] : [url])], { cwd: root, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  child.on('exit', (code) => { if (code !== 0) console.error(log); });
  const port = await new Promise<number>((resolve) => child.on('message', (m: { type: string; port: number }) => { if (m.type === 'listening') resolve(m.port); }));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let { etag } = await send(agent, port, key, undefined);
  for (let i = 0; i < count; i++) {
    const answer = await send(agent, port, key, etag);
    if (answer.status !== (kind === 'evaluate' ? 200 : 304)) throw new Error(`status ${answer.status}`);
    etag = answer.etag ?? etag;
  }
  agent.destroy();
  child.send({ type: 'stop' });
  await new Promise((resolve) => child.on('exit', resolve));
  const collected = /Collected : (\d+)/.exec(log)?.[1];
  console.log(`${kind} requests=${count} instructions=${collected}`);
  if (process.env.KEEP_CALLGRIND) console.log(`kept ${out}`);
  else rmSync(out, { force: true });
}
rmSync(join(new URL(url).pathname, '..'), { force: true, recursive: true });

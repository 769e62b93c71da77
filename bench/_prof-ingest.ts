import { startServer } from '/work/main/src/main.js';
import { loadConfig } from '/work/main/src/config.js';
import { rmSync, mkdirSync } from 'node:fs';
const dir = '/tmp/prof/data'; rmSync(dir, { recursive: true, force: true }); mkdirSync(dir, { recursive: true });
const config = loadConfig({ ...process.env, ENSIGN_DATABASE_URL: `sqlite://${dir}/e.db`, ENSIGN_DATA_DIR: dir, ENSIGN_PORT: '0', ENSIGN_LOG_LEVEL: 'warn', ENSIGN_TELEMETRY_EVENTS_PER_SECOND: '1000000000' });
const { app } = await startServer(config);
const login = await app.inject({ method: 'POST', url: '/api/v1/cli-token', payload: { flow: 'signUp', email: 'bench@example.com', password: 'bench password 1' } });
const token = login.json().token as string;
const created = await app.inject({ method: 'POST', url: '/api/v1/apps', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'bench-app-0001' }, payload: { name: 'Bench', slug: 'bench' } });
const sdk = created.json().keys.find((k: any) => k.env === 'prod').token;
const now = Date.now();
const batch = (n: number) => JSON.stringify({ schemaVersion: 1, events: Array.from({ length: 100 }, (_, i) => ({ id: `e-${n}-${i}`, kind: i % 2 ? 'exposure' : 'outcome', timestamp: new Date(now - 1000).toISOString(), targetingKey: `user-${(n * 100 + i) % 200000}`, flagKey: `flag-${i % 50}`, variant: `v${i % 4}`, ...(i % 2 ? {} : { metricKey: 'checkout', metricValue: 3.5 }) })) });
const N = Number(process.env.N ?? 300);
const bodies = Array.from({ length: N }, (_, n) => batch(n));
for (let i = 0; i < 20; i++) await app.inject({ method: 'POST', url: '/api/v1/events/batch', headers: { authorization: `Bearer ${sdk}`, 'content-type': 'application/json' }, payload: batch(100000 + i) });
const t0 = performance.now(); const c0 = process.cpuUsage();
let next = 0;
await Promise.all(Array.from({ length: Number(process.env.C ?? 1) }, async () => {
  while (next < bodies.length) {
    const body = bodies[next++]!;
    const r = await app.inject({ method: 'POST', url: '/api/v1/events/batch', headers: { authorization: `Bearer ${sdk}`, 'content-type': 'application/json' }, payload: body });
    if (r.statusCode !== 200 || r.json().accepted !== 100) { console.log(r.body.slice(0, 300)); process.exit(1); }
  }
}));
const ms = performance.now() - t0; const cpu = process.cpuUsage(c0);
console.log(`${N * 100} events in ${ms.toFixed(0)} ms: ${(N * 100 / ms * 1000).toFixed(0)} ev/s sequential; CPU ${( (cpu.user + cpu.system) / (N * 100)).toFixed(1)} µs/event`);
const g = (globalThis as any).__groups ?? []; if (g.length) console.log("groups", g.length, "avg", (g.reduce((a: number, b: number) => a + b, 0) / g.length).toFixed(1));
await app.close();

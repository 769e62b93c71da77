// The Ensign process of `npm run bench:telemetry`: a server on a SQLite file or PostgreSQL (argv[2]) with the
// telemetry and insights rate limits out of the way, an app with keys, and its port and ids sent to
// the parent over IPC.
import { startServer } from '../src/main.js';
import { loadConfig } from '../src/config.js';

// argv[2]: a SQLite file, or a postgres:// URL.
const target = process.argv[2]!;
const config = loadConfig({
  ...process.env,
  ENSIGN_DATABASE_URL: target.startsWith('postgres') ? target : `sqlite://${target}`,
  ENSIGN_DATA_DIR: process.argv[3],
  ENSIGN_PORT: '0',
  ENSIGN_LOG_LEVEL: 'warn',
  ENSIGN_TELEMETRY_EVENTS_PER_SECOND: '1000000000',
  ENSIGN_INSIGHTS_QUERIES_PER_MINUTE: '1000000',
});
const { app, address } = await startServer(config);

/** An account, an app with keys, and their ids: what the parent's load needs. */
async function seed() {
  const login = await app.inject({ method: 'POST', url: '/api/v1/cli-token', payload: { flow: 'signUp', email: 'bench@example.com', password: 'bench password 1' } });
  const token = login.json().token as string;
  const created = await app.inject({ method: 'POST', url: '/api/v1/apps', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'bench-app-0001' }, payload: { name: 'Bench', slug: 'bench' } });
  const body = created.json();
  const envs = Object.fromEntries(body.environments.map((e: { slug: string; id: string }) => [e.slug, e.id]));
  const sdk = Object.fromEntries(body.keys.map((k: { env: string; token: string }) => [k.env, k.token]));
  return { token, appId: body.app.id, envs, sdk };
}

// argv[4] 'join': a further process on a database the first one seeded; it serves the same keys.
process.send!({ type: 'listening', address, ...(process.argv[4] === 'join' ? {} : await seed()) });
process.on('message', (m: { type: string }) => {
  if (m.type === 'cpu') process.send!({ type: 'cpu', usage: process.cpuUsage() });
  if (m.type === 'stop') void app.close().then(() => process.exit(0));
});

// The server half of `npm run bench:sdk`: Ensign started in this process on a free loopback port
// (SQLite in a temporary directory, as `npm start` runs it), one app whose prod environment holds
// the benchmark's flags and running experiments, all written through the HTTP API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/main.js';
import { ensignFlagBody, type BenchFlag } from './sdk-flags.js';

export interface BenchServer {
  address: string;
  sdk: string;
  pub: string;
  /** Changes one flag's value (PATCH /api/v1/flags). */
  setValue(key: string, value: unknown): Promise<void>;
  close(): Promise<void>;
}

export async function startBenchServer(flags: BenchFlag[]): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ensign-bench-sdk-'));
  const config = loadConfig({
    ENSIGN_DATA_DIR: dir,
    ENSIGN_PORT: '0',
    ENSIGN_LOG_LEVEL: process.env.ENSIGN_LOG_LEVEL ?? 'warn',
    ENSIGN_QUOTA_FREE_CONFIG_SYNCS: '1000000000',
  });
  const { app, handle, address } = await startServer(config);
  let ids = 0;
  const api = async (method: string, path: string, body: unknown, token?: string): Promise<any> => {
    const res = await fetch(`${address}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        'idempotency-key': `bench-sdk-${String(ids++).padStart(6, '0')}`,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const login = await api('POST', '/api/v1/cli-token', {
    flow: 'signUp',
    email: 'bench@example.com',
    password: 'bench password 1',
  });
  const created = await api('POST', '/api/v1/apps', { name: 'Bench', slug: 'bench' }, login.token);
  const appId: string = created.app.id;
  const admin: string = created.adminKey.token;
  const pub = await api('POST', '/api/v1/keys', { appId, env: 'prod', type: 'pub' }, login.token);
  for (const flag of flags) await api('PATCH', '/api/v1/flags', { appId, env: 'prod', ...ensignFlagBody(flag) }, admin);
  const metric = await api(
    'POST',
    '/api/v1/metrics',
    {
      appId,
      env: 'prod',
      key: 'conversion',
      name: 'Conversion',
      kind: 'proportion',
      eventMetricKey: 'converted',
      direction: 'increase',
    },
    admin,
  );
  for (const flag of flags) {
    if (flag.experiment === null) continue;
    const { experiment } = await api(
      'POST',
      '/api/v1/experiments',
      {
        appId,
        env: 'prod',
        key: flag.experiment.key,
        name: flag.experiment.key,
        flagKey: flag.key,
        allocation: 100,
        variants: [
          { key: 'control', value: flag.value, weight: 50 },
          { key: 'treatment', value: flag.experiment.treatment, weight: 50 },
        ],
        primaryMetric: { metricId: metric.metric.id, revision: metric.metric.revision },
      },
      admin,
    );
    await api(
      'POST',
      `/api/v1/experiments/${experiment.id}/transition`,
      { appId, env: 'prod', revision: experiment.revision, to: 'running' },
      admin,
    );
  }
  let closed = false;
  return {
    address,
    sdk: created.keys.find((k: { env: string }) => k.env === 'prod').token,
    pub: pub.key.token,
    async setValue(key, value) {
      await api('PATCH', '/api/v1/flags', { appId, env: 'prod', key, value }, admin);
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

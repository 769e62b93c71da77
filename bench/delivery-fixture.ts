// The benchmark's data: a SQLite database with environments of 200 flags each, every flag with
// rules, some with overrides, rollouts or variants. Apps and keys are created through the API;
// flags are written through the config store (one version per environment) to keep setup short.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { createDb } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createChangeNotifier } from '../src/db/notifications.js';
import { inTransaction } from '../src/db/transaction.js';
import { benchConfig } from './bench-config.js';
import type { FlagType, Rule } from '@ensign/engine';
import {
  createConfigStateStore,
  emptyState,
  type EnvironmentTarget,
  type FlagRecord,
} from '../src/modules/core/config/index.js';

export const FLAGS_PER_ENVIRONMENT = 200;

const AT = '2026-01-01T00:00:00.000Z';

function valueOf(type: FlagType, i: number): unknown {
  if (type === 'bool') return i % 2 === 0;
  if (type === 'string') return `variant-${i}`;
  if (type === 'number') return i * 1.5;
  return { layout: `grid-${i}`, columns: i % 4, tags: ['a', 'b'] };
}

function flagAt(i: number): FlagRecord {
  const type = (['bool', 'string', 'number', 'json'] as const)[i % 4];
  const key = `flag-${String(i).padStart(3, '0')}`;
  const rules: Rule[] = [
    {
      id: 'beta-users',
      conditions: [
        { attribute: 'plan', operator: 'in', values: ['beta', 'enterprise'] },
        { attribute: 'country', operator: 'notIn', values: ['XX'] },
      ],
      serve: { value: valueOf(type, i + 1) },
    },
    {
      id: 'new-app-versions',
      conditions: [{ attribute: 'appVersion', operator: 'semverGt', values: ['2.3.0'] }],
      serve: { rollout: { percentage: 50, value: valueOf(type, i + 2) } },
    },
  ];
  return {
    key,
    type,
    value: valueOf(type, i),
    enabled: true,
    offValue: valueOf(type, i),
    clientEnabled: i % 3 === 0,
    description: `Benchmark flag ${i}`,
    rollout: i % 5 === 1 ? { percentage: 25, value: valueOf(type, i + 3) } : null,
    variants:
      i % 5 === 2
        ? [
            { key: 'a', value: valueOf(type, i + 4), weight: 50 },
            { key: 'b', value: valueOf(type, i + 5), weight: 50 },
          ]
        : null,
    rules,
    overrides: i % 7 === 0 ? { 'user-1': valueOf(type, i + 6), 'user-2': valueOf(type, i + 7) } : {},
    dependencies: [],
    metadata: { owner: 'bench', ticket: `BENCH-${i}` },
    createdAt: AT,
    updatedAt: AT,
  };
}

export interface BenchEnvironment {
  target: EnvironmentTarget;
  sdk: string;
}

/** Creates a database with `count` environments of 200 flags; returns its URL and their sdk_ keys. */
export async function createBenchDatabase(count: number): Promise<{ url: string; environments: BenchEnvironment[] }> {
  const url = `sqlite://${join(mkdtempSync(join(tmpdir(), 'ensign-bench-')), 'ensign.db')}`;
  const handle = createDb(url);
  await migrateToLatest(handle.db);
  const app = await buildApp({ db: handle.db, dbHandle: handle, config: { ...benchConfig(), logLevel: 'warn' } });
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/cli-token',
    payload: { flow: 'signUp', email: 'bench@example.com', password: 'bench password 1' },
  });
  const token = login.json().token as string;
  const environments: BenchEnvironment[] = [];
  for (let a = 0; environments.length < count; a++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': `bench-app-${a}` },
      payload: { name: `Bench ${a}`, slug: `bench-${a}` },
    });
    if (res.statusCode !== 201) throw new Error(`creating an app: ${res.statusCode} ${res.body}`);
    const body = res.json();
    for (const env of body.environments) {
      const key = body.keys.find((k: { env: string }) => k.env === env.slug);
      if (environments.length < count)
        environments.push({ target: { appId: env.appId, envId: env.id, env: env.slug }, sdk: key.token });
    }
  }
  await app.close();

  const notifier = createChangeNotifier(handle);
  const store = createConfigStateStore(handle.db, notifier);
  const state = emptyState();
  for (let i = 0; i < FLAGS_PER_ENVIRONMENT; i++) {
    const flag = flagAt(i);
    state.flags[flag.key] = flag;
  }
  for (const { target } of environments) {
    await inTransaction(handle.db, async (trx) => {
      const locked = await store.lock(trx, target);
      await store.commit(trx, target, locked, {
        state,
        changeId: null,
        operation: 'bench.seed',
        authority: { type: 'system' },
      });
    });
  }
  await notifier.close();
  await handle.close();
  return { url, environments };
}

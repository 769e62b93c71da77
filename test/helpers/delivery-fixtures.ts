// Test fixtures of the delivery tests: an environment with its keys, flags written into it, and
// waiting for what a process serves. Flags go through PATCH /api/v1/flags when the app has that
// route, otherwise straight through the config store (one new version either way per call).
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { DbHandle } from '../../src/db/create-db.js';
import { createChangeNotifier } from '../../src/db/notifications.js';
import { inTransaction } from '../../src/db/transaction.js';
import type { FlagDefinition } from '@ensign/engine';
import { bearer, createApp, createKey, signUp } from './fixtures.js';
import {
  createConfigStateStore,
  type EnvironmentTarget,
  type FlagRecord,
} from '../../src/modules/core/config/index.js';
import { waitFor } from './polling.js';

export interface EnvironmentFixture {
  target: EnvironmentTarget;
  user: { token: string; userId: string; email: string };
  sdk: string;
  pub: string;
  admin: string;
}

/** A user, an app, and its `prod` environment with an sdk_ and a pub_ key. */
export async function environmentFixture(app: FastifyInstance): Promise<EnvironmentFixture> {
  const user = await signUp(app);
  const created = await createApp(app, user.token);
  const prod = created.body.environments.find((e: { slug: string }) => e.slug === 'prod');
  const pub = await createKey(app, user.token, { appId: created.appId, env: 'prod', type: 'pub' });
  return {
    target: { appId: created.appId, envId: prod.id, env: 'prod' },
    user,
    sdk: created.sdk.prod!,
    pub: pub.token,
    admin: created.admin,
  };
}

export type FlagInput = Partial<FlagDefinition> & Pick<FlagDefinition, 'key' | 'type' | 'value'>;

function record(flag: FlagInput): FlagRecord {
  const at = new Date().toISOString();
  return {
    enabled: true,
    offValue: flag.value,
    clientEnabled: false,
    description: '',
    rollout: null,
    variants: null,
    rules: [],
    overrides: {},
    dependencies: [],
    metadata: {},
    ...flag,
    createdAt: at,
    updatedAt: at,
  };
}

/** Upserts the flags into the fixture's environment through `app`, whose database is `handle`. */
export async function putFlags(
  app: FastifyInstance,
  handle: DbHandle,
  channel: string | undefined,
  fx: EnvironmentFixture,
  flags: FlagInput[],
): Promise<void> {
  if (app.hasRoute({ method: 'PATCH', url: '/api/v1/flags' })) {
    for (const flag of flags) {
      const res = await app.inject({
        method: 'PATCH',
        url: '/api/v1/flags',
        headers: bearer(fx.admin),
        payload: { appId: fx.target.appId, env: fx.target.env, ...flag },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    return;
  }
  const notifier = createChangeNotifier(handle, channel);
  try {
    const store = createConfigStateStore(handle.db, notifier);
    await inTransaction(handle.db, async (trx) => {
      const locked = await store.lock(trx, fx.target);
      const state = structuredClone(locked.state);
      for (const flag of flags) state.flags[flag.key] = record(flag);
      await store.commit(trx, fx.target, locked, {
        state,
        changeId: null,
        operation: 'test.seed',
        authority: { type: 'system' },
      });
    });
  } finally {
    await notifier.close();
  }
}

export function getConfig(
  app: FastifyInstance,
  token: string,
  headers: Record<string, string> = {},
  url = '/api/v1/config',
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers: { ...bearer(token), ...headers } });
}

/** Polls `app` until it serves a version above `than`; returns the response and how long it took. */
export async function waitForVersionAbove(
  app: FastifyInstance,
  token: string,
  than: number,
  timeoutMs = 3000,
): Promise<{ res: LightMyRequestResponse; elapsedMs: number }> {
  let res!: LightMyRequestResponse;
  const elapsedMs = await waitFor(
    async () => {
      res = await getConfig(app, token);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().version > than;
    },
    timeoutMs,
    { intervalMs: 25, what: `a version above ${than}` },
  );
  return { res, elapsedMs };
}

// A started Ensign server (SQLite in a temp dir, random port) with one app whose flags are created
// through the HTTP API, for the OpenFeature SDK end-to-end tests.
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/e2e-server.js';
import type { TestContext } from '../helpers/test-app.js';

export interface EnsignServer {
  address: string;
  /** The OFREP base URL the providers take: the service's /api, no trailing slash. */
  ofrepBaseUrl: string;
  appId: string;
  sdk: string;
  pub: string;
  /** Creates or changes a flag of the app's prod environment (PATCH /api/v1/flags). */
  setFlag(flag: Record<string, unknown>): Promise<number>;
  /** Stops the server before the test ends, open streams included (as a crash or a deploy would). */
  stop(): Promise<void>;
}

export const FLAGS: Record<string, unknown>[] = [
  { key: 'dark-mode', type: 'bool', value: false, clientEnabled: true, metadata: { team: 'web' } },
  {
    key: 'checkout',
    type: 'string',
    value: 'classic',
    clientEnabled: true,
    rules: [
      {
        id: 'beta-norway',
        conditions: [
          { attribute: 'plan', operator: 'in', values: ['beta'] },
          { attribute: 'country', operator: 'eq', values: ['NO'] },
        ],
        serve: { value: 'new' },
      },
    ],
  },
  { key: 'limit', type: 'number', value: 10, clientEnabled: true, rollout: { percentage: 50, value: 20 } },
  {
    key: 'layout',
    type: 'json',
    value: { columns: 2 },
    clientEnabled: true,
    variants: [
      { key: 'wide', value: { columns: 3 }, weight: 50 },
      { key: 'narrow', value: { columns: 1 }, weight: 50 },
    ],
  },
  { key: 'ops-only', type: 'bool', value: true, clientEnabled: false },
];

export async function startEnsign(t: TestContext): Promise<EnsignServer> {
  const { address, app } = await startTestServer(t, 'openfeature');

  const api = async (
    method: string,
    path: string,
    body: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ): Promise<any> => {
    const res = await fetch(`${address}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const login = await api('POST', '/api/v1/cli-token', {
    flow: 'signUp',
    email: 'openfeature@example.com',
    password: 'a long enough password',
  });
  const created = await api('POST', '/api/v1/apps', { name: 'Shop', slug: 'shop' }, login.token, {
    'idempotency-key': 'openfeature-app-1',
  });
  const appId: string = created.app.id;
  const pub = await api('POST', '/api/v1/keys', { appId, env: 'prod', type: 'pub' }, login.token, {
    'idempotency-key': 'openfeature-pub-1',
  });
  const setFlag = async (flag: Record<string, unknown>) =>
    (await api('PATCH', '/api/v1/flags', { appId, env: 'prod', ...flag }, created.adminKey.token)).version as number;
  for (const flag of FLAGS) await setFlag(flag);
  return {
    address,
    ofrepBaseUrl: `${address}/api`,
    appId,
    sdk: created.keys.find((k: { env: string }) => k.env === 'prod').token,
    pub: pub.key.token,
    setFlag,
    async stop() {
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
    },
  };
}

// Request helpers the experiment, layer and holdout tests share: one environment of one app with a
// flag and a metric, addressed once.
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { call, userWithApp } from '../../../../test/helpers/fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

export interface ExperimentsClient {
  appId: string;
  token: string;
  sdk: string;
  pub: string;
  admin: string;
  metricId: string;
  post(
    path: string,
    payload: Record<string, unknown>,
    options?: { idem?: string | true; token?: string },
  ): Promise<LightMyRequestResponse>;
  patch(
    path: string,
    payload: Record<string, unknown>,
    options?: { idem?: string | true; token?: string },
  ): Promise<LightMyRequestResponse>;
  get(path: string, query?: Record<string, string | number>, token?: string): Promise<LightMyRequestResponse>;
  /** Creates an experiment (201 asserted) and returns its record. */
  create(fields?: Record<string, unknown>): Promise<any>;
  /** Transition, ramp or iterate at the experiment's current revision (200 asserted). */
  served(id: string, action: 'transition' | 'ramp' | 'iterate', fields?: Record<string, unknown>): Promise<any>;
  /** POST /api/v1/evaluate of one flag for one subject, at least at `version`. */
  evaluate(flagKey: string, context: Record<string, unknown>, version?: number): Promise<any>;
  configVersion(): Promise<number>;
}

export const CHECKOUT_VARIANTS = [
  { key: 'control', value: 'classic', weight: 50 },
  { key: 'treatment', value: 'one-page', weight: 50 },
];

export async function experimentsClient(app: FastifyInstance): Promise<ExperimentsClient> {
  const owner = await userWithApp(app);
  const { appId } = owner;
  const token = owner.user.token;
  const env = { appId, env: 'dev' };
  const qs = (q: Record<string, string | number>) =>
    new URLSearchParams(Object.entries({ ...env, ...q }).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const post: ExperimentsClient['post'] = (path, payload, options = {}) =>
    call(app, 'POST', path, { token: options.token ?? token, idem: options.idem, payload: { ...env, ...payload } });
  const patch: ExperimentsClient['patch'] = (path, payload, options = {}) =>
    call(app, 'PATCH', path, { token: options.token ?? token, idem: options.idem, payload: { ...env, ...payload } });
  const get: ExperimentsClient['get'] = (path, query = {}, t = token) =>
    call(app, 'GET', `${path}?${qs(query)}`, { token: t });

  for (const flag of [
    { key: 'checkout', type: 'string', value: 'classic', overrides: { 'vip-1': 'vip' } },
    { key: 'search', type: 'bool', value: false },
  ]) {
    const res = await call(app, 'PATCH', '/api/v1/flags', { token, payload: { ...env, ...flag } });
    assert.equal(res.statusCode, 200, res.body);
  }
  const metric = await post('/api/v1/metrics', {
    key: 'conversion',
    name: 'Conversion',
    kind: 'proportion',
    eventMetricKey: 'checkout.completed',
    direction: 'increase',
  });
  assert.equal(metric.statusCode, 201, metric.body);
  const metricId = metric.json().metric.id as string;
  const pubRes = await call(app, 'POST', '/api/v1/keys', {
    token,
    idem: true,
    payload: { appId, env: 'dev', type: 'pub' },
  });
  assert.equal(pubRes.statusCode, 201, pubRes.body);

  const client: ExperimentsClient = {
    appId,
    token,
    sdk: owner.sdk.dev!,
    pub: pubRes.json().key.token,
    admin: owner.admin,
    metricId,
    post,
    patch,
    get,
    async create(fields = {}) {
      const res = await post('/api/v1/experiments', {
        key: `exp-${Math.random().toString(36).slice(2, 8)}`,
        name: 'One-page checkout',
        flagKey: 'checkout',
        variants: CHECKOUT_VARIANTS,
        allocation: 100,
        primaryMetric: { metricId, revision: 1 },
        ...fields,
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().experiment;
    },
    async served(id, action, fields = {}) {
      const current = (await get(`/api/v1/experiments/${id}`)).json().experiment;
      const res = await post(`/api/v1/experiments/${id}/${action}`, { revision: current.revision, ...fields });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    },
    async evaluate(flagKey, context, version = 0) {
      let detail!: { version: number } & Record<string, unknown>;
      await waitFor(
        async () => {
          const res = await app.inject({
            method: 'POST',
            url: '/api/v1/evaluate',
            headers: { authorization: `Bearer ${owner.sdk.dev}` },
            payload: { flagKey, context },
          });
          assert.equal(res.statusCode, 200, res.body);
          detail = res.json();
          return detail.version >= version;
        },
        3000,
        { what: `evaluation at version ${version}` },
      );
      return detail;
    },
    async configVersion() {
      return (await call(app, 'GET', `/api/v1/flags?${qs({})}`, { token })).json().version;
    },
  };
  return client;
}

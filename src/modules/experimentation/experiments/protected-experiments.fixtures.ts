// The protected environment the protected-experiment-*.test.ts files share (issue 20, decision 0029),
// with an owner (Alice), an editor (Bob) and a viewer (Val), and the calls those tests make there:
// moves through the routes, and proposals taken through propose → approve before they are executed.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { call, expectError } from '../../../../test/helpers/fixtures.js';
import { authorityClient, twoPeople } from '../../core/authority/authority.test-client.js';
import { CHECKOUT_VARIANTS } from './experiments.test-client.js';

type Team = Awaited<ReturnType<typeof twoPeople>>;

/** prod with a flag, a metric, a layer and a holdout, protected (1 approval); dev left unprotected. */
export async function setup(app: FastifyInstance) {
  const s = await twoPeople(app);
  const ok = async (res: Awaited<ReturnType<typeof call>>, status = 200) => {
    assert.equal(res.statusCode, status, res.body);
    return res.json();
  };
  const post = (env: string, path: string, payload: Record<string, unknown>, token = s.alice.token) =>
    call(app, 'POST', path, { token, idem: true, payload: { appId: s.appId, env, ...payload } });
  const get = (env: string, path: string, token = s.alice.token) =>
    call(app, 'GET', `${path}${path.includes('?') ? '&' : '?'}appId=${s.appId}&env=${env}`, { token });
  const metricIds: Record<string, string> = {};
  for (const env of ['prod', 'dev']) {
    await ok(
      await call(app, 'PATCH', '/api/v1/flags', {
        token: s.alice.token,
        payload: { appId: s.appId, env, key: 'checkout', type: 'string', value: 'classic' },
      }),
    );
    await ok(
      await call(app, 'PATCH', '/api/v1/flags', {
        token: s.alice.token,
        payload: { appId: s.appId, env, key: 'search', type: 'bool', value: false },
      }),
    );
    metricIds[env] = (
      await ok(
        await post(env, '/api/v1/metrics', {
          key: 'conversion',
          name: 'Conversion',
          kind: 'proportion',
          eventMetricKey: 'checkout.completed',
          direction: 'increase',
        }),
        201,
      )
    ).metric.id;
  }
  const layer = (await ok(await post('prod', '/api/v1/layers', { key: 'checkout-layer', name: 'Checkout' }), 201))
    .layer;
  const holdout = (
    await ok(await post('prod', '/api/v1/holdouts', { key: 'global', name: 'Global', percentage: 5 }), 201)
  ).holdout;
  const createExperiment = async (env: string, fields: Record<string, unknown> = {}, token = s.alice.token) =>
    (
      await ok(
        await post(
          env,
          '/api/v1/experiments',
          {
            key: `exp-${Math.random().toString(36).slice(2, 8)}`,
            name: 'One-page checkout',
            flagKey: 'checkout',
            variants: CHECKOUT_VARIANTS,
            allocation: 20,
            primaryMetric: { metricId: metricIds[env], revision: 1 },
            ...fields,
          },
          token,
        ),
        201,
      )
    ).experiment;
  const au = authorityClient(app, s.appId, 'prod');
  assert.equal((await au.protect(s.alice.token, 1)).statusCode, 200);
  const experiment = async (id: string, env = 'prod') =>
    (await ok(await get(env, `/api/v1/experiments/${id}`))).experiment;
  const version = async (env = 'prod') => (await ok(await get(env, '/api/v1/flags'))).version as number;
  const served = async (env = 'prod') =>
    (await ok(await get(env, '/api/v1/config-versions?limit=1'))).current.state.experiments ?? {};
  /** A move through the route, at the experiment's current revision. */
  const move = async (
    id: string,
    action: string,
    fields: Record<string, unknown>,
    token = s.alice.token,
    env = 'prod',
  ) =>
    post(
      env,
      `/api/v1/experiments/${id}/${action}`,
      { revision: (await experiment(id, env)).revision, ...fields },
      token,
    );
  /** Propose as `by` (at the current config version), approve as `approver`, then return the proposal. */
  const proposeApproved = async (
    by: Team['alice'],
    approver: Team['alice'],
    kind: string,
    body: Record<string, unknown>,
    reason?: string,
  ) => {
    const res = await au.propose(by.token, {
      baseVersion: await version(),
      change: { kind, body },
      ...(reason ? { reason } : {}),
    });
    assert.equal(res.statusCode, 200, res.body);
    const proposal = res.json().proposal;
    expectError(await au.approve(by.token, proposal.id, proposal.digest), 403, 'self_approval_forbidden');
    expectError(await au.approve(s.val.token, proposal.id, proposal.digest), 403, 'capability_missing');
    assert.equal((await au.approve(approver.token, proposal.id, proposal.digest)).statusCode, 200);
    return proposal;
  };
  const execute = async (token: string, proposal: { id: string; digest: string }) => {
    const res = await au.execute(token, proposal.id, proposal.digest);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().receipt;
  };
  return {
    ...s,
    ok,
    post,
    get,
    au,
    layer,
    holdout,
    metricIds,
    createExperiment,
    experiment,
    version,
    served,
    move,
    proposeApproved,
    execute,
  };
}

// Rollbacks and experiments meet in the composite state: a rollback never restores the served
// experiments (docs/decisions/0018), and a protected environment refuses experiment changes that
// alter what is served, like any other direct configuration write.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, uniqueKey } from '../../../../test/helpers/fixtures.js';
import { experimentsClient } from '../../experimentation/experiments/experiments.test-client.js';

for (const dialect of dialects) {
  describe(`rollbacks and experiments on ${dialect}`, () => {
    test('a rollback keeps the current experiments and its plan says so', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await experimentsClient(app);
      const before = await c.configVersion();
      const experiment = await c.create();
      await c.served(experiment.id, 'transition', { to: 'running' });
      const patched = await call(app, 'PATCH', '/api/v1/flags', {
        token: c.token,
        payload: { appId: c.appId, env: 'dev', key: 'search', value: true },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const current = await c.configVersion();

      const plan = await call(app, 'POST', '/api/v1/rollbacks/plan', {
        token: c.token,
        payload: { appId: c.appId, env: 'dev', targetVersion: before, expectedVersion: current },
      });
      assert.equal(plan.statusCode, 200, plan.body);
      assert.ok(
        plan.json().plan.warnings.some((w: string) => w.startsWith('experiments are not rolled back')),
        plan.body,
      );
      assert.ok(
        !plan.json().plan.changes.some((ch: any) => ch.resourceType === 'experiment'),
        'no experiment change in the plan',
      );

      const applied = await call(app, 'POST', '/api/v1/rollbacks/apply', {
        token: c.token,
        payload: {
          appId: c.appId,
          env: 'dev',
          targetVersion: before,
          expectedVersion: current,
          planDigest: plan.json().plan.digest,
          idempotencyKey: uniqueKey(),
        },
      });
      assert.equal(applied.statusCode, 200, applied.body);
      const state = (
        await call(app, 'GET', `/api/v1/config-versions/${applied.json().version}?appId=${c.appId}&env=dev`, {
          token: c.token,
        })
      ).json().state;
      assert.equal(state.flags.search.value, false, 'the flag is restored');
      assert.equal(state.experiments[experiment.id].state, 'running', 'the experiment still runs');
      const detail = await c.evaluate('checkout', { targetingKey: 'user-1' }, applied.json().version);
      assert.equal(detail.experiment?.id, experiment.id);
    });

    test('a protected environment refuses experiment changes that alter what is served', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await experimentsClient(app);
      const experiment = await c.create();
      const policy = await call(app, 'PATCH', '/api/v1/envs', {
        token: c.token,
        payload: { appId: c.appId, env: 'dev', requiredApprovals: 1 },
      });
      assert.equal(policy.statusCode, 200, policy.body);
      const res = await c.post(`/api/v1/experiments/${experiment.id}/transition`, {
        revision: experiment.revision,
        to: 'running',
      });
      expectError(res, 403, 'approval_required');
      const after = (await c.get(`/api/v1/experiments/${experiment.id}`)).json().experiment;
      assert.equal(after.state, 'draft');
      assert.equal(after.revision, experiment.revision);
    });
  });
}

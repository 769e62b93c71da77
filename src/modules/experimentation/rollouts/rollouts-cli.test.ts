// `ensign rollouts` against a real server (SQLite), as a user runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliUser, runCli } from '../../../../test/helpers/cli-runner.js';
import { startTestServer } from '../../../../test/helpers/e2e-server.js';
import { experimentsClient } from '../experiments/experiments.test-client.js';

test('ensign rollouts create, transition, recommend, approve, get', async (t) => {
  const { app, address, dir } = await startTestServer(t, 'rollouts-cli');
  const c = await experimentsClient(app);
  const exp = await c.create();
  await c.served(exp.id, 'transition', { to: 'running' });
  const { env, ok } = cliUser(address, c.token, dir);
  const scope = ['--app', c.appId, '--env', 'dev'];
  const dry = JSON.parse(
    await ok([
      'rollouts',
      'create',
      exp.id,
      ...scope,
      '--variant',
      'treatment',
      '--steps',
      '25:0,100:0',
      '--guardrail',
      `${c.metricId}:1:0.1`,
      '--dry-run',
      '--json',
    ]),
  );
  assert.equal(dry.dryRun, true);
  const created = JSON.parse(
    await ok([
      'rollouts',
      'create',
      exp.id,
      ...scope,
      '--variant',
      'treatment',
      '--steps',
      '25:0,100:0',
      '--guardrail',
      `${c.metricId}:1:0.1`,
      '--plan-id',
      'cli-plan',
      '--json',
    ]),
  );
  assert.deepEqual(
    [created.plan.id, created.plan.state, created.plan.steps.length, created.plan.guardrails[0].maxRelativeDegradation],
    ['cli-plan', 'draft', 2, 0.1],
  );
  const active = await ok(['rollouts', 'transition', exp.id, 'cli-plan', ...scope, '--to', 'active']);
  assert.match(active, /active, step 0 \(25 %\)/);
  const rec = await ok(['rollouts', 'recommend', exp.id, 'cli-plan', ...scope, '--confirm']);
  assert.match(rec, /^stale/);
  const refused = await runCli(['rollouts', 'approve', exp.id, 'cli-plan', ...scope], env);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr + refused.stdout, /recommendation_not_actionable|cannot be approved/);
  await ok(['rollouts', 'transition', exp.id, 'cli-plan', ...scope, '--to', 'completed']);
  const got = JSON.parse(await ok(['rollouts', 'get', exp.id, 'cli-plan', ...scope, '--json']));
  assert.equal(got.plan.state, 'completed');
  assert.match(await ok(['rollouts', 'list', exp.id, ...scope]), /cli-plan\s+\d+\s+completed/);
  const bad = await runCli(['rollouts', 'create', exp.id, ...scope, '--variant', 'treatment', '--steps', '25:x'], env);
  assert.equal(bad.code, 2);
});

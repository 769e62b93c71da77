// `ensign propose experiment-…|rollout-…`, `ensign experiments stop` and `ensign rollouts stop` in a
// protected environment, against a real server (SQLite), as two people run them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cliUser } from '../../../../test/helpers/cli-runner.js';
import { startTestServer } from '../../../../test/helpers/e2e-server.js';
import { addMember, call, signUp } from '../../../../test/helpers/fixtures.js';
import { experimentsClient } from './experiments.test-client.js';

test('ensign propose experiment-transition, rollout-create, rollout-transition; approve and execute by two people; stops with a reason', async (t) => {
  const { app, address, dir } = await startTestServer(t, 'protected-cli');
  const c = await experimentsClient(app);
  const bobUser = await signUp(app);
  await addMember(app, c.token, c.appId, bobUser, 'editor');
  const exp = await c.create();
  assert.equal(
    (
      await call(app, 'PATCH', '/api/v1/envs', {
        token: c.token,
        payload: { appId: c.appId, env: 'dev', requiredApprovals: 1 },
      })
    ).statusCode,
    200,
  );
  const alice = cliUser(address, c.token, join(dir, 'alice'));
  const bob = cliUser(address, bobUser.token, join(dir, 'bob'));
  const scope = ['--app', c.appId, '--env', 'dev'];

  // Starting directly is refused, and the answer says what to run.
  const refused = await alice.run(['experiments', 'start', exp.id, ...scope]);
  assert.notEqual(refused.code, 0);
  assert.match(
    refused.stderr,
    new RegExp(`ensign propose experiment-transition ${exp.id} --app ${c.appId} --env dev --to running --revision 1`),
  );

  const proposed = JSON.parse(
    await alice.ok([
      'propose',
      'experiment-transition',
      exp.id,
      ...scope,
      '--to',
      'running',
      '--reason',
      'launch',
      '--json',
    ]),
  ).proposal;
  assert.deepEqual(proposed.change, {
    kind: 'experiment.transition',
    body: { experimentId: exp.id, revision: 1, to: 'running' },
  });
  const human = await alice.run(['proposals', 'list', ...scope]);
  assert.match(human.stdout, new RegExp(`experiment ${exp.id} r1 → running`));
  const selfApproval = await alice.run(['approve', proposed.id, ...scope]);
  assert.notEqual(selfApproval.code, 0);
  assert.match(selfApproval.stderr, /someone else must approve/);
  await bob.ok(['approve', proposed.id, ...scope]);
  assert.match(await alice.ok(['execute', proposed.id, ...scope]), /Executed: receipt rcp_/);
  assert.equal((await c.get(`/api/v1/experiments/${exp.id}`)).json().experiment.state, 'running');

  // A plan proposed and executed the same way, activated by a second proposal.
  const plan = JSON.parse(
    await bob.ok([
      'propose',
      'rollout-create',
      exp.id,
      ...scope,
      '--variant',
      'treatment',
      '--steps',
      '50:0,100:0',
      '--plan-id',
      'cli-plan',
      '--json',
    ]),
  ).proposal;
  await alice.ok(['approve', plan.id, ...scope]);
  await bob.ok(['execute', plan.id, ...scope]);
  const activate = JSON.parse(
    await bob.ok(['propose', 'rollout-transition', exp.id, 'cli-plan', ...scope, '--to', 'active', '--json']),
  ).proposal;
  assert.deepEqual(activate.change.body, { experimentId: exp.id, planId: 'cli-plan', planVersion: 1, to: 'active' });
  const shown = await bob.ok(['proposals', 'list', ...scope, '--status', 'open']);
  assert.match(shown, /rollout plan cli-plan v1 → active/);
  await alice.ok(['approve', activate.id, ...scope]);
  await alice.ok(['execute', activate.id, ...scope]);
  assert.equal((await c.get(`/api/v1/experiments/${exp.id}/rollouts/cli-plan`)).json().plan.state, 'active');

  // Stops: direct, with a reason (required by the command), journaled with source emergency.
  const noReason = await bob.run(['rollouts', 'stop', exp.id, 'cli-plan', ...scope]);
  assert.equal(noReason.code, 2, noReason.stderr);
  assert.match(
    await bob.ok(['rollouts', 'stop', exp.id, 'cli-plan', ...scope, '--cancel', '--reason', 'wrong variant']),
    /cli-plan v\d+: cancelled \(wrong variant\)/,
  );
  assert.match(
    await bob.ok(['experiments', 'stop', exp.id, ...scope, '--reason', 'errors spiking']),
    /is paused at revision 3: errors spiking/,
  );
  const emergency = (await c.get('/api/v1/changes', { source: 'emergency' })).json().changes;
  assert.deepEqual(
    emergency.map((e: any) => [e.operation, e.context.reason]),
    [
      ['experiment.pause', 'errors spiking'],
      ['rollout.transition', 'wrong variant'],
    ],
  );
  const resume = await alice.run(['experiments', 'resume', exp.id, ...scope]);
  assert.match(resume.stderr, /ensign propose experiment-transition .* --to running --revision 3/);
});

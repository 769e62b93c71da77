// `ensign experiments recompute|run|results` against a real server (SQLite, jobs running), as a user runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliUser, runCli } from '../../../../test/helpers/cli-runner.js';
import { startTestServer } from '../../../../test/helpers/e2e-server.js';
import { experimentsClient } from './experiments.test-client.js';

test('ensign experiments recompute --wait, run and results', async (t) => {
  const { app, address, dir } = await startTestServer(t, 'experiment-results-cli');
  const c = await experimentsClient(app);
  const exp = await c.create();
  await c.served(exp.id, 'transition', { to: 'running' });
  const iteration = (await c.get(`/api/v1/experiments/${exp.id}`)).json().experiment.currentIteration;
  const at = new Date(Date.now() + 1000).toISOString();
  const events = ['control', 'treatment'].flatMap((variant) =>
    Array.from({ length: 10 }, (_, i) => ({
      id: `cli-${variant}-${i}`,
      kind: 'exposure',
      timestamp: at,
      targetingKey: `person-${variant}-${i}`,
      flagKey: 'checkout',
      variant,
      experimentId: exp.id,
      iterationId: iteration.id,
    })),
  );
  const sent = await app.inject({
    method: 'POST',
    url: '/api/v1/events/batch',
    headers: { authorization: `Bearer ${c.sdk}` },
    payload: { schemaVersion: 1, events },
  });
  assert.equal(sent.json().accepted, 20, sent.body);

  const { env, ok } = cliUser(address, c.token, dir);
  const scope = ['--app', c.appId, '--env', 'dev'];
  const recomputed = JSON.parse(await ok(['experiments', 'recompute', exp.id, ...scope, '--wait', '--json']));
  assert.equal(recomputed.run.state, 'succeeded');
  assert.equal(recomputed.run.cause, 'recompute');
  const run = JSON.parse(await ok(['experiments', 'run', exp.id, recomputed.run.id, ...scope, '--json']));
  assert.deepEqual(run.run, recomputed.run);
  const results = JSON.parse(await ok(['experiments', 'results', exp.id, ...scope, '--json']));
  assert.equal(results.aggregate.runId, recomputed.run.id);
  assert.deepEqual(
    results.aggregate.variants.map((v: any) => v.units),
    [10, 10],
  );
  const table = await ok(['experiments', 'results', exp.id, ...scope]);
  assert.match(table, /decision: not_ready/);
  assert.match(table, /treatment\s+10/);
  // Metrics by name, with a rate per variant for a proportion.
  assert.match(table, /VARIANT\s+UNITS\s+Conversion \(rate\)/);
  assert.doesNotMatch(table, /met_/);
  // The defaults of `ensign use` stand in for --app and --env, here as on every command.
  await ok(['use', c.appId, '--env', 'dev']);
  assert.equal(JSON.parse(await ok(['experiments', 'results', exp.id, '--json'])).aggregate.runId, recomputed.run.id);
  assert.ok(Array.isArray(JSON.parse(await ok(['metrics', 'list', '--json'])).metrics));
  assert.ok(Array.isArray(JSON.parse(await ok(['members', 'list', '--json'])).members));
  const stale = await runCli(
    ['experiments', 'recompute', exp.id, ...scope, '--prior-watermark', '1/nope', '--json'],
    env,
  );
  assert.notEqual(stale.code, 0);
  assert.match(stale.stderr + stale.stdout, /watermark_mismatch/);
});

// End to end against a real server: the metrics, layers, holdouts and experiments commands.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli-runner.js';
import { startTestServer } from '../helpers/e2e-server.js';

test('ensign metrics, layers, holdouts and experiments commands against a real server', async (t) => {
  const { address, dir } = await startTestServer(t, 'cli-experiments');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ENSIGN_URL: address,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    ENSIGN_TOKEN: '',
  };
  const cli = async (args: string[]) => {
    const r = await runCli(args, env, '');
    assert.equal(r.code, 0, `ensign ${args.join(' ')} failed:\n${r.stderr}`);
    return r;
  };
  const json = async (args: string[]) => JSON.parse((await cli([...args, '--json'])).stdout);
  await runCli(
    ['login', '--sign-up', '--email', 'exp-cli@example.com', '--password-stdin'],
    env,
    'a long enough password',
  );
  const appId: string = (await json(['apps', 'create', 'Exp', '--slug', 'exp'])).app.id;
  const scope = ['--app', appId, '--env', 'dev'];
  await cli(['flags', 'set', 'checkout', ...scope, '--type', 'bool', '--value', 'false', '--op', 'create']);

  const metric = (
    await json([
      'metrics',
      'create',
      ...scope,
      '--key',
      'conversion',
      '--name',
      'Conversion',
      '--kind',
      'proportion',
      '--event-metric-key',
      'checkout.completed',
      '--direction',
      'increase',
    ])
  ).metric;
  assert.equal(metric.revision, 1);
  assert.equal(
    (await json(['metrics', 'revise', metric.id, ...scope, '--revision', '1', '--winsorize-percentile', '99'])).metric
      .revision,
    2,
  );
  assert.deepEqual(
    (await json(['metrics', 'revisions', metric.id, ...scope])).revisions.map((r: { revision: number }) => r.revision),
    [1, 2],
  );
  assert.match((await cli(['metrics', 'list', ...scope])).stdout, /conversion\s+2\s+proportion/);

  assert.equal(
    (await json(['layers', 'create', ...scope, '--key', 'l1', '--name', 'Layer', '--dry-run'])).preview.id,
    null,
  );
  const layer = (await json(['layers', 'create', ...scope, '--key', 'l1', '--name', 'Layer'])).layer;
  assert.equal(
    (await json(['layers', 'update', layer.id, ...scope, '--expected-version', '1', '--name', 'Renamed'])).layer
      .version,
    2,
  );
  const holdout = (
    await json(['holdouts', 'create', ...scope, '--key', 'h1', '--name', 'Holdout', '--percentage', '5'])
  ).holdout;
  assert.equal(holdout.percentage, 5);

  const variants = JSON.stringify([
    { key: 'control', value: false, weight: 50 },
    { key: 'treatment', value: true, weight: 50 },
  ]);
  const exp = (
    await json([
      'experiments',
      'create',
      ...scope,
      '--key',
      'e1',
      '--name',
      'E1',
      '--flag',
      'checkout',
      '--variants',
      variants,
      '--allocation',
      '10',
      '--primary-metric',
      `${metric.id}:2`,
      '--layer',
      layer.id,
      '--holdout',
      holdout.id,
    ])
  ).experiment;
  assert.deepEqual([exp.state, exp.layerRange], ['draft', { start: 0, end: 1000 }]);
  const started = await json(['experiments', 'start', exp.id, ...scope]);
  assert.equal(started.experiment.state, 'running');
  const ramped = await cli(['experiments', 'ramp', exp.id, ...scope, '--allocation', '50']);
  assert.match(ramped.stdout, /running at revision 3; iteration 1 revision 2, allocation 50 %/);
  await cli(['experiments', 'pause', exp.id, ...scope]);
  const iterated = await json(['experiments', 'iterate', exp.id, ...scope]);
  assert.equal(iterated.experiment.currentIteration.number, 2);
  const stale = await runCli(['experiments', 'pause', exp.id, ...scope, '--revision', '1'], env, '');
  assert.equal(stale.code, 1);
  assert.match(stale.stderr, /version_conflict/);
  assert.match((await cli(['experiments', 'list', ...scope])).stdout, /e1\s+running\s+5\s+checkout\s+50\s+2\.1/);
  const completed = await json(['experiments', 'complete', exp.id, ...scope, '--winner', 'treatment']);
  assert.equal(completed.experiment.winner, 'treatment');
});

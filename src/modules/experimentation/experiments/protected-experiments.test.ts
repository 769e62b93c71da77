// Experiments, layers and holdouts in a protected environment (issue 20, decision 0029): widening
// moves through propose → approve → execute, stops direct with a reason, with an owner (Alice), an
// editor (Bob) and a viewer (Val).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../app.js';
import { buildTestApp, createTestDatabase, dialects, testConfig } from '../../../../test/helpers/test-app.js';
import { call, expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { authorityClient, twoPeople } from '../../core/authority/authority.test-client.js';
import { journalOf } from '../../core/flags/flags.test-client.js';
import { CHECKOUT_VARIANTS } from './experiments.test-client.js';

type Team = Awaited<ReturnType<typeof twoPeople>>;

/** prod with a flag, a metric, a layer and a holdout, protected (1 approval); dev left unprotected. */
async function setup(app: FastifyInstance) {
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

for (const dialect of dialects) {
  describe(`experiments in a protected environment on ${dialect}`, () => {
    test('start, pause, resume, ramp, iterate, complete and archive: four eyes for each widening move, a stop with a reason', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await setup(app);
      const exp = await s.createExperiment('prod', { layerId: s.layer.id, holdoutId: s.holdout.id });

      // Starting directly: 403 naming the kind and the exact command.
      const refused = expectError(await s.move(exp.id, 'transition', { to: 'running' }), 403, 'approval_required');
      assert.equal(refused.metadata?.changeKind, 'experiment.transition');
      assert.equal(
        refused.metadata?.command,
        `ensign propose experiment-transition ${exp.id} --app ${s.appId} --env prod --to running --revision 1`,
      );
      assert.deepEqual(refused.metadata?.change, {
        kind: 'experiment.transition',
        body: { experimentId: exp.id, revision: 1, to: 'running' },
      });
      assert.match(refused.resolution, /experiment\.transition/);
      assert.match(refused.resolution, /ensign propose experiment-transition/);
      expectError(await s.move(exp.id, 'transition', { to: 'running' }, s.val.token), 403, 'forbidden');

      // Proposed by Alice, approved by Bob, executed by Alice.
      const v0 = await s.version();
      const start = await s.proposeApproved(
        s.alice,
        s.bob,
        'experiment.transition',
        { experimentId: exp.id, revision: 1, to: 'running' },
        'launch',
      );
      const ulid = start.id.slice(4);
      assert.equal(start.preview.resultVersion, v0 + 1);
      // The environment's first experiment: the whole experiments section is added.
      assert.deepEqual(
        start.preview.changes.map((c: any) => [c.op, c.resourceType, c.key]),
        [['add', 'state', 'experiments']],
      );
      const previewed = start.preview.changes[0].after[exp.id];
      assert.equal(previewed.iterationId, `itr_${ulid}`, 'the preview names the iteration execution creates');
      assert.equal(previewed.holdout.percentage, 5);
      assert.deepEqual(
        [
          start.preview.resource.type,
          start.preview.resource.id,
          start.preview.resource.before.state,
          start.preview.resource.after.state,
        ],
        ['experiment', exp.id, 'draft', 'running'],
      );
      assert.equal(start.preview.resource.after.lastTransition.reason, 'launch', "the proposal's reason is the move's");
      assert.equal((await s.experiment(exp.id)).state, 'draft', 'the preview changed nothing');
      assert.equal(await s.version(), v0);
      expectError(await s.au.execute(s.val.token, start.id, start.digest), 403, 'capability_missing');
      const receipt = await s.execute(s.alice.token, start);
      assert.deepEqual([receipt.appliedVersion, receipt.proposalId], [v0 + 1, start.id]);
      const running = await s.experiment(exp.id);
      assert.deepEqual(
        [
          running.state,
          running.revision,
          running.currentIteration.id,
          running.currentIteration.number,
          running.currentIteration.revision,
        ],
        ['running', 2, `itr_${ulid}`, 1, 1],
      );
      assert.deepEqual((await s.served())[exp.id], previewed, 'served exactly as previewed');
      const [started] = await journalOf(app, s.alice.token, s.appId, { operation: 'experiment.start' });
      assert.deepEqual(
        [started.id, started.source, started.env, started.afterVersion],
        [receipt.changeId, 'authority', 'prod', v0 + 1],
      );
      assert.deepEqual(started.context, {
        proposalId: start.id,
        receiptId: receipt.id,
        proposedBy: { type: 'user', userId: s.alice.userId },
        approvers: [s.bob.userId],
      });
      const readback = (await s.au.readback(s.val.token, receipt.id)).json();
      assert.deepEqual([readback.observation.currentVersion, readback.observation.inEffect], [v0 + 1, true]);

      // A stop never waits: Bob (editor) pauses directly, with a reason; without one it is 400.
      expectValidation(await s.move(exp.id, 'transition', { to: 'paused' }, s.bob.token), '/reason');
      expectValidation(await s.move(exp.id, 'transition', { to: 'paused', reason: '   ' }, s.bob.token), '/reason');
      expectError(
        await s.move(exp.id, 'transition', { to: 'paused', reason: 'errors spiking' }, s.val.token),
        403,
        'forbidden',
      );
      const paused = await s.ok(
        await s.move(exp.id, 'transition', { to: 'paused', reason: 'errors spiking' }, s.bob.token),
      );
      assert.deepEqual([paused.experiment.state, paused.version], ['paused', v0 + 2]);
      const [pause] = await journalOf(app, s.alice.token, s.appId, { operation: 'experiment.pause' });
      assert.deepEqual(
        [pause.source, pause.context, pause.authority.userId, pause.id],
        ['emergency', { reason: 'errors spiking' }, s.bob.userId, paused.changeId],
      );
      assert.equal((await s.served())[exp.id].state, 'paused');

      // Resume, ramp and iterate: 403 directly; Bob proposes, Alice approves, Bob executes.
      expectError(
        await s.move(exp.id, 'transition', { to: 'running', reason: 'better now' }),
        403,
        'approval_required',
      );
      const resume = await s.proposeApproved(s.bob, s.alice, 'experiment.transition', {
        experimentId: exp.id,
        revision: 3,
        to: 'running',
        reason: 'fixed',
      });
      await s.execute(s.bob.token, resume);
      assert.deepEqual(
        [(await s.experiment(exp.id)).state, (await s.experiment(exp.id)).lastTransition.reason],
        ['running', 'fixed'],
      );
      const rampRefused = expectError(await s.move(exp.id, 'ramp', { allocation: 10 }), 403, 'approval_required');
      assert.equal(
        rampRefused.metadata?.command,
        `ensign propose experiment-ramp ${exp.id} --app ${s.appId} --env prod --allocation 10 --revision 4`,
      );
      const ramp = await s.proposeApproved(s.bob, s.alice, 'experiment.ramp', {
        experimentId: exp.id,
        revision: 4,
        allocation: 40,
      });
      assert.deepEqual(ramp.preview.resource.after.layerRange, { start: 0, end: 4000 });
      const rampReceipt = await s.execute(s.alice.token, ramp);
      const ramped = await s.experiment(exp.id);
      assert.deepEqual(
        [
          ramped.allocation,
          ramped.revision,
          ramped.currentIteration.id,
          ramped.currentIteration.revision,
          ramped.layerRange,
        ],
        [40, 5, `itr_${ulid}`, 2, { start: 0, end: 4000 }],
      );
      const [rampEntry] = await journalOf(app, s.alice.token, s.appId, { operation: 'experiment.ramp' });
      assert.deepEqual(
        [rampEntry.source, rampEntry.id, rampEntry.context.proposalId],
        ['authority', rampReceipt.changeId, ramp.id],
      );

      await s.ok(await s.move(exp.id, 'transition', { to: 'paused', reason: 'new population' }, s.bob.token));
      expectError(await s.move(exp.id, 'iterate', {}), 403, 'approval_required');
      const iterate = await s.proposeApproved(s.alice, s.bob, 'experiment.iterate', {
        experimentId: exp.id,
        revision: 6,
      });
      await s.execute(s.bob.token, iterate);
      const iterated = await s.experiment(exp.id);
      assert.deepEqual(
        [iterated.state, iterated.currentIteration.number, iterated.currentIteration.id],
        ['running', 2, `itr_${iterate.id.slice(4)}`],
      );
      assert.notEqual((await s.served())[exp.id].salt, previewed.salt, 'a new salt');

      // Completing with a winner widens (four eyes); without a winner it is a stop.
      expectError(
        await s.move(exp.id, 'transition', { to: 'completed', winner: 'treatment', reason: 'won' }),
        403,
        'approval_required',
      );
      const exp2 = await s.createExperiment('prod', {
        flagKey: 'search',
        variants: [
          { key: 'off', value: false, weight: 50 },
          { key: 'on', value: true, weight: 50 },
        ],
      });
      const start2 = await s.proposeApproved(s.alice, s.bob, 'experiment.transition', {
        experimentId: exp2.id,
        revision: 1,
        to: 'running',
      });
      await s.execute(s.bob.token, start2);
      const completeWinner = await s.proposeApproved(s.alice, s.bob, 'experiment.transition', {
        experimentId: exp.id,
        revision: 7,
        to: 'completed',
        winner: 'treatment',
      });
      await s.execute(s.alice.token, completeWinner);
      const completed = await s.experiment(exp.id);
      assert.deepEqual([completed.state, completed.winner], ['completed', 'treatment']);
      assert.equal((await s.served())[exp.id], undefined, 'no longer served');
      const stopped = await s.ok(
        await s.move(exp2.id, 'transition', { to: 'completed', reason: 'abandon' }, s.bob.token),
      );
      assert.deepEqual([stopped.experiment.state, stopped.experiment.winner], ['completed', null]);
      const [complete] = await journalOf(app, s.alice.token, s.appId, {
        operation: 'experiment.complete',
        resourceId: exp2.id,
      });
      assert.deepEqual([complete.source, complete.context.reason], ['emergency', 'abandon']);

      // Archiving is proposed too; it frees the layer range.
      expectError(await s.move(exp.id, 'transition', { to: 'archived' }), 403, 'approval_required');
      const archive = await s.proposeApproved(s.bob, s.alice, 'experiment.transition', {
        experimentId: exp.id,
        revision: 8,
        to: 'archived',
      });
      assert.deepEqual([archive.preview.changes, archive.preview.resultVersion], [[], await s.version()]);
      const archiveReceipt = await s.execute(s.bob.token, archive);
      assert.equal(archiveReceipt.changeId, null, 'what is served did not change');
      assert.equal((await s.experiment(exp.id)).state, 'archived');
      const [archived] = await journalOf(app, s.alice.token, s.appId, { operation: 'experiment.archive' });
      assert.deepEqual([archived.source, archived.context.proposalId], ['authority', archive.id]);
      assert.equal((await s.ok(await s.get('prod', `/api/v1/layers/${s.layer.id}`))).layer.allocations.length, 0);

      // Every proposal of this test: proposed by one, approved by the other, executed once.
      const listed = (await s.au.list(s.val.token, { status: 'executed' })).json().proposals;
      assert.equal(listed.length, 7);
    });

    test('stale at execute: a revision that moved, an environment that moved; two concurrent executes give one change', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await setup(app);
      const exp = await s.createExperiment('prod');
      const start = await s.proposeApproved(s.alice, s.bob, 'experiment.transition', {
        experimentId: exp.id,
        revision: 1,
        to: 'running',
      });
      // Concurrent executes: one version, one receipt, one journal entry.
      const v0 = await s.version();
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, i) => s.au.execute(i % 2 ? s.alice.token : s.bob.token, start.id, start.digest)),
      );
      for (const r of results) assert.equal(r.statusCode, 200, r.body);
      assert.equal(new Set(results.map((r) => r.json().receipt.id)).size, 1);
      assert.equal(await s.version(), v0 + 1);
      assert.equal((await journalOf(app, s.alice.token, s.appId, { operation: 'experiment.start' })).length, 1);
      assert.equal((await s.experiment(exp.id)).revision, 2);

      // The revision moves without a config change (a rename): the ramp proposal is stale, execute answers 409.
      const ramp = await s.proposeApproved(s.bob, s.alice, 'experiment.ramp', {
        experimentId: exp.id,
        revision: 2,
        allocation: 30,
      });
      assert.equal((await s.au.show(s.alice.token, ramp.id)).json().status, 'approved');
      const renamed = await call(app, 'PATCH', `/api/v1/experiments/${exp.id}`, {
        token: s.alice.token,
        idem: true,
        payload: { appId: s.appId, env: 'prod', revision: 2, name: 'Renamed' },
      });
      assert.equal(renamed.statusCode, 200, renamed.body); // a rename serves nothing: direct
      assert.equal((await s.au.show(s.alice.token, ramp.id)).json().status, 'stale');
      const conflict = expectError(await s.au.execute(s.bob.token, ramp.id, ramp.digest), 409, 'version_conflict');
      assert.equal(conflict.metadata?.currentRevision, 3);
      assert.equal((await s.experiment(exp.id)).allocation, 20, 'nothing applied');
      const carolLike = (await s.au.list(s.alice.token, { status: 'stale' }))
        .json()
        .proposals.map((v: any) => v.proposal.id);
      assert.deepEqual(carolLike, [ramp.id]);

      // The environment moves (an emergency pause): approving and executing an older proposal fail.
      const ramp2 = await s.au.propose(s.bob.token, {
        baseVersion: await s.version(),
        change: { kind: 'experiment.ramp', body: { experimentId: exp.id, revision: 3, allocation: 30 } },
      });
      assert.equal(ramp2.statusCode, 200, ramp2.body);
      const p2 = ramp2.json().proposal;
      await s.ok(await s.move(exp.id, 'transition', { to: 'paused', reason: 'incident' }, s.alice.token));
      expectError(await s.au.approve(s.alice.token, p2.id, p2.digest), 409, 'proposal_closed');
      expectError(await s.au.execute(s.bob.token, p2.id, p2.digest), 409, 'approvals_missing');

      // Proposing against a stale base or revision answers at once.
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: 0,
          change: { kind: 'experiment.ramp', body: { experimentId: exp.id, revision: 4, allocation: 30 } },
        }),
        409,
        'version_conflict',
      );
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.ramp', body: { experimentId: exp.id, revision: 1, allocation: 30 } },
        }),
        409,
        'version_conflict',
      );
      // And the route's own validation: same 400 paths, 404, 409 invalid_transition.
      expectValidation(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.ramp', body: { experimentId: exp.id, revision: 4, allocation: 120 } },
        }),
        '/allocation',
      );
      expectValidation(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.ramp', body: { revision: 4, allocation: 30 } },
        }),
        '/experimentId',
      );
      expectValidation(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: {
            kind: 'experiment.transition',
            body: { experimentId: exp.id, revision: 4, to: 'running', extra: 1 },
          },
        }),
      );
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.iterate', body: { experimentId: 'exp_missing', revision: 1 } },
        }),
        404,
        'not_found',
      );
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.transition', body: { experimentId: exp.id, revision: 4, to: 'archived' } },
        }),
        409,
        'invalid_transition',
      );
      expectError(
        await s.au.propose(s.val.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.iterate', body: { experimentId: exp.id, revision: 4 } },
        }),
        403,
        'capability_missing',
      );
    });

    test('experiment.patch, layer.patch and holdout.patch through the workflow; definitions stay direct', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await setup(app);
      const exp = await s.createExperiment('prod', {}, s.bob.token);
      const patch = await s.proposeApproved(s.alice, s.bob, 'experiment.patch', {
        experimentId: exp.id,
        revision: 1,
        allocation: 35,
        hypothesis: 'Fewer steps convert better',
      });
      assert.deepEqual(
        [patch.preview.changes, patch.preview.resource.before.allocation, patch.preview.resource.after.allocation],
        [[], 20, 35],
      );
      const receipt = await s.execute(s.alice.token, patch);
      assert.equal(receipt.changeId, null);
      const patched = await s.experiment(exp.id);
      assert.deepEqual(
        [patched.allocation, patched.hypothesis, patched.revision],
        [35, 'Fewer steps convert better', 2],
      );
      const [update] = await journalOf(app, s.alice.token, s.appId, { operation: 'experiment.update' });
      assert.deepEqual([update.source, update.context.proposalId], ['authority', patch.id]);

      const layer = await s.proposeApproved(s.bob, s.alice, 'layer.patch', {
        layerId: s.layer.id,
        version: 1,
        name: 'Checkout flow',
      });
      await s.execute(s.bob.token, layer);
      const layerNow = (await s.ok(await s.get('prod', `/api/v1/layers/${s.layer.id}`))).layer;
      assert.deepEqual([layerNow.name, layerNow.version], ['Checkout flow', 2]);
      const holdout = await s.proposeApproved(s.bob, s.alice, 'holdout.patch', {
        holdoutId: s.holdout.id,
        version: 1,
        percentage: 10,
      });
      assert.deepEqual(
        [holdout.preview.resource.before.percentage, holdout.preview.resource.after.percentage],
        [5, 10],
      );
      await s.execute(s.alice.token, holdout);
      assert.equal((await s.ok(await s.get('prod', `/api/v1/holdouts/${s.holdout.id}`))).holdout.percentage, 10);
      for (const operation of ['layer.update', 'holdout.update']) {
        const [entry] = await journalOf(app, s.alice.token, s.appId, { operation });
        assert.equal(entry.source, 'authority');
      }
      expectValidation(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'holdout.patch', body: { holdoutId: s.holdout.id, version: 2, dryRun: true } },
        }),
      );
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'layer.patch', body: { layerId: s.layer.id, version: 1, name: 'x' } },
        }),
        409,
        'version_conflict',
      );
    });

    test('unprotected environments behave as before: every move direct, no reason needed, journaled as sent', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await setup(app);
      const exp = await s.createExperiment('dev');
      for (const [action, fields] of [
        ['transition', { to: 'running' }],
        ['transition', { to: 'paused' }],
        ['iterate', {}],
        ['ramp', { allocation: 50 }],
        ['transition', { to: 'completed', winner: 'treatment' }],
      ] as const) {
        const res = await s.move(exp.id, action, fields, s.bob.token, 'dev');
        assert.equal(res.statusCode, 200, res.body);
      }
      const sources = new Set(
        (await journalOf(app, s.alice.token, s.appId, { env: 'dev', resourceType: 'experiment' })).map(
          (e: any) => e.source,
        ),
      );
      assert.deepEqual([...sources], ['api']);
      // The workflow works there too (0 approvals needed).
      const dev = authorityClient(app, s.appId, 'dev');
      const archive = await dev.propose(s.alice.token, {
        baseVersion: await s.version('dev'),
        change: { kind: 'experiment.transition', body: { experimentId: exp.id, revision: 6, to: 'archived' } },
      });
      assert.equal(archive.statusCode, 200, archive.body);
      assert.equal(
        (await dev.execute(s.alice.token, archive.json().proposal.id, archive.json().proposal.digest)).statusCode,
        200,
      );
      assert.equal((await s.experiment(exp.id, 'dev')).state, 'archived');
    });

    if (dialect === 'postgres') {
      test('two instances on one PostgreSQL: concurrent executes of a start give one iteration, one version, one receipt', async (t) => {
        const database = await createTestDatabase('postgres');
        const handles = [database.handle, database.open()];
        const apps = await Promise.all(
          handles.map((handle) =>
            buildApp({ db: handle.db, dbHandle: handle, notifyChannel: database.pgSchema, config: testConfig() }),
          ),
        );
        t.after(async () => {
          for (const a of apps) await a.close();
          for (const h of handles) await h.close();
          await database.drop();
        });
        const s = await setup(apps[0]!);
        const exp = await s.createExperiment('prod');
        const start = await s.proposeApproved(s.alice, s.bob, 'experiment.transition', {
          experimentId: exp.id,
          revision: 1,
          to: 'running',
        });
        const v0 = await s.version();
        const other = authorityClient(apps[1]!, s.appId, 'prod');
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 ? other : s.au).execute(i % 3 ? s.bob.token : s.alice.token, start.id, start.digest),
          ),
        );
        for (const r of results) assert.equal(r.statusCode, 200, r.body);
        assert.equal(new Set(results.map((r) => r.json().receipt.id)).size, 1);
        assert.equal(await s.version(), v0 + 1);
        const iterations = await database.handle.db
          .selectFrom('experiment_iterations')
          .select('id')
          .where('experiment_id', '=', exp.id)
          .execute();
        assert.deepEqual(
          iterations.map((r) => r.id),
          [`itr_${start.id.slice(4)}`],
        );
        assert.equal((await journalOf(apps[1]!, s.alice.token, s.appId, { source: 'authority' })).length, 1);
      });
    }
  });
}

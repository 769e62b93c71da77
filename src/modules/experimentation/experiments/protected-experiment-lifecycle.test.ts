// Experiment moves in a protected environment (issue 20, decision 0029): start, resume, ramp,
// iterate, complete with a winner and archive go through propose → approve → execute; pause and
// complete without a winner are stops, direct with a reason. An unprotected environment keeps every
// move direct. The environment and its people are protected-experiments.fixtures.ts's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { authorityClient } from '../../core/authority/authority.test-client.js';
import { journalOf } from '../../core/flags/flags.test-client.js';
import { setup } from './protected-experiments.fixtures.js';

for (const dialect of dialects) {
  describe(`experiment moves in a protected environment on ${dialect}`, () => {
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
  });
}

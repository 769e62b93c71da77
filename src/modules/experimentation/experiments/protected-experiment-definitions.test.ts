// Definitions in a protected environment (issue 20, decision 0029): experiment.patch, layer.patch and
// holdout.patch through propose → approve → execute, journaled with source authority. The
// environment and its people are protected-experiments.fixtures.ts's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { journalOf } from '../../core/flags/flags.test-client.js';
import { setup } from './protected-experiments.fixtures.js';

for (const dialect of dialects) {
  describe(`experiment, layer and holdout definitions in a protected environment on ${dialect}`, () => {
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
  });
}

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { experimentsClient } from '../experiments/experiments.test-client.js';

for (const dialect of dialects) {
  describe(`holdouts on ${dialect}`, () => {
    test('create, dry runs store nothing, patch with version CAS, list and read', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const client = await experimentsClient(app);
      const preview = await client.post('/api/v1/holdouts', {
        key: 'global',
        name: 'Global',
        percentage: 5,
        dryRun: true,
      });
      assert.deepEqual(
        [preview.statusCode, preview.json().preview.id, preview.json().preview.percentage],
        [200, null, 5],
      );
      assert.deepEqual((await client.get('/api/v1/holdouts')).json().holdouts, []);
      expectValidation(await client.post('/api/v1/holdouts', { key: 'big', name: 'Big', percentage: 51 }));
      expectValidation(await client.post('/api/v1/holdouts', { key: 'tiny', name: 'Tiny', percentage: 0 }));
      expectValidation(
        await client.post('/api/v1/holdouts', { key: 'odd', name: 'Odd', percentage: 1.234 }),
        '/percentage',
      );

      const created = await client.post(
        '/api/v1/holdouts',
        { key: 'global', name: 'Global', percentage: 5 },
        { idem: true },
      );
      assert.equal(created.statusCode, 201, created.body);
      const holdout = created.json().holdout;
      assert.match(holdout.id, /^hol_/);
      assert.deepEqual([holdout.version, holdout.percentage, holdout.key], [1, 5, 'global']);
      expectError(
        await client.post('/api/v1/holdouts', { key: 'global', name: 'Again', percentage: 5 }),
        409,
        'key_conflict',
      );
      const dry = await client.patch(`/api/v1/holdouts/${holdout.id}`, { version: 1, percentage: 10, dryRun: true });
      assert.deepEqual([dry.json().preview.percentage, dry.json().preview.version], [10, 2]);
      assert.equal((await client.get(`/api/v1/holdouts/${holdout.id}`)).json().holdout.percentage, 5);
      const patched = await client.patch(`/api/v1/holdouts/${holdout.id}`, { version: 1, percentage: 10 });
      assert.deepEqual([patched.json().holdout.percentage, patched.json().holdout.version], [10, 2]);
      assert.deepEqual(
        expectError(
          await client.patch(`/api/v1/holdouts/${holdout.id}`, { version: 1, name: 'x' }),
          409,
          'version_conflict',
        ).metadata,
        { currentVersion: 2 },
      );
      expectError(await client.get('/api/v1/holdouts/hol_missing'), 404, 'not_found');
    });

    test('held-out subjects get the ordinary value and are never assigned; the percentage is fixed while experiments run', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const client = await experimentsClient(app);
      const holdout = (await client.post('/api/v1/holdouts', { key: 'global', name: 'Global', percentage: 30 })).json()
        .holdout;
      const exp = await client.create({ holdoutId: holdout.id, allocation: 100 });
      const started = await client.served(exp.id, 'transition', { to: 'running' });
      let held = 0;
      for (let i = 0; i < 200; i++) {
        const detail = await client.evaluate('checkout', { targetingKey: `h-${i}` }, started.version);
        if (detail.experiment.reason === 'holdout') {
          held++;
          assert.deepEqual(
            [detail.value, detail.experiment.inExperiment, detail.experiment.variant],
            ['classic', false, null],
          );
        } else {
          assert.equal(detail.experiment.reason, 'assigned');
        }
      }
      assert.ok(held > 35 && held < 85, `about 30 % held out: ${held}`);
      const inUse = expectError(
        await client.patch(`/api/v1/holdouts/${holdout.id}`, { version: 1, percentage: 10 }),
        409,
        'holdout_in_use',
      );
      assert.deepEqual(inUse.metadata, { experimentIds: [exp.id] });
      assert.equal(
        (await client.patch(`/api/v1/holdouts/${holdout.id}`, { version: 1, name: 'Renamed' })).statusCode,
        200,
        'the name may change',
      );
    });
  });
}

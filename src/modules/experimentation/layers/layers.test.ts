import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError, expectValidation, uniqueKey } from '../../../../test/helpers/fixtures.js';
import { experimentsClient } from '../experiments/experiments.test-client.js';

for (const dialect of dialects) {
  describe(`layers on ${dialect}`, () => {
    test('create, dry runs store nothing, patch with version CAS, list and read', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const client = await experimentsClient(app);
      const preview = await client.post('/api/v1/layers', { key: 'checkout', name: 'Checkout', dryRun: true });
      assert.equal(preview.statusCode, 200, preview.body);
      assert.deepEqual(
        { ...preview.json().preview, salt: undefined, createdAt: undefined, updatedAt: undefined },
        {
          id: null,
          appId: client.appId,
          env: 'dev',
          key: 'checkout',
          name: 'Checkout',
          description: '',
          version: 1,
          salt: undefined,
          allocations: [],
          freeBuckets: 10000,
          createdAt: undefined,
          updatedAt: undefined,
          createdBy: { type: 'user', userId: preview.json().preview.createdBy.userId },
        },
      );
      assert.deepEqual((await client.get('/api/v1/layers')).json().layers, [], 'a dry run stores nothing');

      const key = uniqueKey();
      const created = await client.post('/api/v1/layers', { key: 'checkout', name: 'Checkout' }, { idem: key });
      assert.equal(created.statusCode, 201, created.body);
      const layer = created.json().layer;
      assert.match(layer.id, /^lay_/);
      assert.equal(
        (await client.post('/api/v1/layers', { key: 'checkout', name: 'Checkout' }, { idem: key })).headers[
          'idempotent-replayed'
        ],
        'true',
      );
      expectError(await client.post('/api/v1/layers', { key: 'checkout', name: 'Again' }), 409, 'key_conflict');
      expectError(
        await client.post('/api/v1/layers', { key: 'checkout', name: 'Again', dryRun: true }),
        409,
        'key_conflict',
      );

      const dry = await client.patch(`/api/v1/layers/${layer.id}`, { version: 1, name: 'Renamed', dryRun: true });
      assert.deepEqual([dry.statusCode, dry.json().preview.name, dry.json().preview.version], [200, 'Renamed', 2]);
      assert.equal(
        (await client.get(`/api/v1/layers/${layer.id}`)).json().layer.name,
        'Checkout',
        'a dry patch stores nothing',
      );
      const patched = await client.patch(`/api/v1/layers/${layer.id}`, {
        version: 1,
        name: 'Renamed',
        description: 'the checkout page',
      });
      assert.deepEqual(
        [patched.json().layer.name, patched.json().layer.version, patched.json().layer.salt],
        ['Renamed', 2, layer.salt],
      );
      assert.deepEqual(
        expectError(
          await client.patch(`/api/v1/layers/${layer.id}`, { version: 1, name: 'Stale' }),
          409,
          'version_conflict',
        ).metadata,
        { currentVersion: 2 },
      );
      expectValidation(await client.patch(`/api/v1/layers/${layer.id}`, { version: 2, salt: 'x' }));
      expectError(await client.get('/api/v1/layers/lay_missing'), 404, 'not_found');
      assert.deepEqual(
        (await client.get('/api/v1/layers')).json().layers.map((l: any) => l.key),
        ['checkout'],
      );
    });

    test('experiments own disjoint ranges: layer_full past 10,000 buckets, ranges released on archive, never a shared subject', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const client = await experimentsClient(app);
      const layer = (await client.post('/api/v1/layers', { key: 'l', name: 'L' })).json().layer;
      const a = await client.create({ layerId: layer.id, allocation: 60 });
      const b = await client.create({
        layerId: layer.id,
        allocation: 40,
        flagKey: 'search',
        variants: [
          { key: 'off', value: false, weight: 50 },
          { key: 'on', value: true, weight: 50 },
        ],
      });
      assert.deepEqual(
        [a.layerRange, b.layerRange],
        [
          { start: 0, end: 6000 },
          { start: 6000, end: 10000 },
        ],
      );
      const full = expectError(
        await client.post('/api/v1/experiments', {
          key: 'c',
          name: 'C',
          flagKey: 'checkout',
          variants: [
            { key: 'x', value: 'x', weight: 50 },
            { key: 'y', value: 'y', weight: 50 },
          ],
          allocation: 1,
          layerId: layer.id,
          primaryMetric: { metricId: client.metricId, revision: 1 },
        }),
        409,
        'layer_full',
      );
      assert.equal(full.metadata?.freeBuckets, 0);
      const read = (await client.get(`/api/v1/layers/${layer.id}`)).json().layer;
      assert.deepEqual([read.freeBuckets, read.allocations.map((x: any) => x.experimentId)], [0, [a.id, b.id]]);

      await client.served(a.id, 'transition', { to: 'running' });
      const started = await client.served(b.id, 'transition', { to: 'running' });
      let inA = 0;
      let inB = 0;
      for (let i = 0; i < 300; i++) {
        const targetingKey = `subject-${i}`;
        const x = await client.evaluate('checkout', { targetingKey }, started.version);
        const y = await client.evaluate('search', { targetingKey }, started.version);
        assert.ok(
          !(x.experiment.inExperiment && y.experiment.inExperiment),
          `${targetingKey} is in one experiment of the layer at most`,
        );
        if (x.experiment.inExperiment) inA++;
        else assert.equal(x.experiment.reason, 'layer_excluded');
        if (y.experiment.inExperiment) inB++;
      }
      assert.ok(inA > 140 && inB > 80 && inA + inB === 300, `the ranges cover the layer (${inA} + ${inB})`);
      expectError(
        await client.post(`/api/v1/experiments/${b.id}/ramp`, {
          revision: started.experiment.revision,
          allocation: 50,
        }),
        409,
        'layer_full',
      );

      await client.served(a.id, 'transition', { to: 'completed' });
      await client.served(a.id, 'transition', { to: 'archived' });
      const freed = (await client.get(`/api/v1/layers/${layer.id}`)).json().layer;
      assert.deepEqual(
        [freed.freeBuckets, freed.allocations],
        [6000, [{ experimentId: b.id, start: 6000, end: 10000 }]],
      );
      const c = await client.create({ layerId: layer.id, allocation: 25 });
      assert.deepEqual(c.layerRange, { start: 0, end: 2500 });
    });

    test('concurrent placements in one layer never overlap: one of two that cannot both fit is layer_full', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const client = await experimentsClient(app);
      const layer = (await client.post('/api/v1/layers', { key: 'race', name: 'Race' })).json().layer;
      const body = (key: string) => ({
        key,
        name: key,
        flagKey: 'checkout',
        variants: [
          { key: 'x', value: 'x', weight: 50 },
          { key: 'y', value: 'y', weight: 50 },
        ],
        allocation: 60,
        layerId: layer.id,
        primaryMetric: { metricId: client.metricId, revision: 1 },
      });
      const answers = await Promise.all(['r1', 'r2', 'r3'].map((k) => client.post('/api/v1/experiments', body(k))));
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 409, 409]);
      const read = (await client.get(`/api/v1/layers/${layer.id}`)).json().layer;
      assert.deepEqual([read.allocations.length, read.freeBuckets], [1, 4000]);
      assert.deepEqual(
        (await client.get('/api/v1/experiments')).json().experiments.length,
        1,
        'the refused ones left nothing behind',
      );
    });
  });
}

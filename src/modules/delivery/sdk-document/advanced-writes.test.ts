// Advanced and privacy settings are changed through PATCH /api/v1/flags/bulk, recorded as versions
// and journal entries, and served by GET /api/v1/advanced-config; prerequisites are validated on
// every write path.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { bearer, expectValidation } from '../../../../test/helpers/fixtures.js';
import { journalOf } from '../../core/flags/flags.test-client.js';
import { advancedClient } from './advanced.test-client.js';

for (const dialect of dialects) {
  describe(`advanced settings through bulk apply on ${dialect}`, () => {
    test('advanced and privacy changes make one version and one journal entry, and the document follows', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      await c.put(
        { key: 'kill', type: 'bool', value: false },
        { key: 'checkout', type: 'bool', value: false, metadata: { owner: 'pay' } },
      );
      const before = await c.get(c.fx.pub);
      assert.deepEqual(before.json().flags, {});

      const res = await c.bulk({
        expectedVersion: 2,
        advanced: {
          flags: { checkout: { clientEnabled: true, dependencies: [{ flag: 'kill', value: false }] } },
          ttlSeconds: 120,
        },
        privacy: { privateAttributes: ['email'], clientMetadataKeys: ['owner'] },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().version, 3);

      const [entry] = await journalOf(app, c.fx.user.token, c.fx.target.appId, { operation: 'bulk.apply' });
      assert.equal(entry.id, res.json().changeId);
      assert.deepEqual([entry.beforeVersion, entry.afterVersion, entry.env], [2, 3, 'prod']);
      assert.deepEqual(
        entry.diff.map((d: any) => `${d.resourceType}:${d.key}${d.path}`),
        [
          'flag:checkout/clientEnabled',
          'flag:checkout/dependencies',
          'privacy:clientMetadataKeys',
          'privacy:privateAttributes',
          'settings:ttlSeconds',
        ],
      );
      const versions = await app.inject({
        method: 'GET',
        url: `/api/v1/config-versions?appId=${c.fx.target.appId}&env=prod&limit=1`,
        headers: bearer(c.fx.admin),
      });
      assert.deepEqual(
        versions.json().versions.map((v: any) => [v.version, v.operation, v.changeId]),
        [[3, 'bulk.apply', entry.id]],
      );

      const after = await c.until(c.fx.pub, 3, { 'if-none-match': String(before.headers.etag) });
      const doc = after.json();
      assert.equal(doc.version, 3);
      assert.deepEqual(doc.delivery.ttlSeconds, 120);
      assert.deepEqual(doc.delivery.pollIntervalSeconds, 120);
      assert.deepEqual(doc.privacy, { privateAttributes: ['email'], clientMetadataKeys: ['owner'] });
      assert.deepEqual(Object.keys(doc.flags), ['checkout', 'kill']);
      assert.deepEqual(doc.flags.checkout.metadata, { owner: 'pay' });

      // The same settings again change nothing: no version, no journal entry.
      const again = await c.bulk({ privacy: { privateAttributes: ['email'] }, advanced: { ttlSeconds: 120 } });
      assert.deepEqual([again.json().version, again.json().changeId], [3, null]);
      assert.equal((await journalOf(app, c.fx.user.token, c.fx.target.appId, { operation: 'bulk.apply' })).length, 1);
    });

    test('prerequisites naming unknown flags or closing a cycle are 400 on PATCH and bulk, and nothing is written', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      await c.put(
        { key: 'a', type: 'bool', value: true },
        { key: 'b', type: 'bool', value: true, dependencies: [{ flag: 'a', value: true }] },
      );

      expectValidation(
        await c.patchFlag({ key: 'c', type: 'bool', value: true, dependencies: [{ flag: 'ghost', value: true }] }),
        '/dependencies/0/flag',
      );
      const patchCycle = expectValidation(await c.patchFlag({ key: 'a', dependencies: [{ flag: 'b', value: true }] }));
      assert.match(patchCycle.message, /cycle/);
      expectValidation(
        await c.patchFlag({ key: 'a', dependencies: [{ flag: 'a', value: true }] }),
        '/dependencies/0/flag',
      );

      expectValidation(
        await c.bulk({ advanced: { flags: { a: { dependencies: [{ flag: 'ghost', value: true }] } } } }),
        '/advanced/flags/a/dependencies/0/flag',
      );
      const bulkCycle = expectValidation(
        await c.bulk({ advanced: { flags: { a: { dependencies: [{ flag: 'b', value: true }] } } } }),
      );
      assert.match(bulkCycle.message, /cycle/);
      // A cycle made of two changes in one request is still a cycle.
      await c.put({ key: 'x', type: 'bool', value: true }, { key: 'y', type: 'bool', value: true });
      const pair = expectValidation(
        await c.bulk({
          advanced: {
            flags: {
              x: { dependencies: [{ flag: 'y', value: true }] },
              y: { dependencies: [{ flag: 'x', value: true }] },
            },
          },
        }),
      );
      assert.match(pair.message, /cycle/);

      const doc = (await c.manage()).json();
      assert.equal(doc.version, 4);
      assert.deepEqual(doc.flags.a.dependencies, []);
      assert.deepEqual(doc.flags.x.dependencies, []);
    });
  });
}

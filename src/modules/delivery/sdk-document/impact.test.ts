import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { createApp, expectError, expectValidation, signUp } from '../../../../test/helpers/fixtures.js';
import { advancedClient, type AdvancedClient } from './advanced.test-client.js';

/** kill ← checkout ← upsell (each depends on the one before); banner stands alone. */
async function seeded(c: AdvancedClient) {
  await c.put(
    { key: 'kill', type: 'bool', value: false },
    {
      key: 'checkout',
      type: 'bool',
      value: false,
      clientEnabled: true,
      dependencies: [{ flag: 'kill', value: false }],
      metadata: { owner: 'pay' },
    },
    { key: 'upsell', type: 'string', value: 'none', dependencies: [{ flag: 'checkout', value: true }] },
    {
      key: 'banner',
      type: 'string',
      value: 'hi',
      rules: [
        {
          id: 'mail',
          conditions: [{ attribute: 'email', operator: 'endsWith', values: ['@corp.example'] }],
          serve: { value: 'staff' },
        },
      ],
    },
  );
}

for (const dialect of dialects) {
  describe(`POST /api/v1/advanced-config/impact on ${dialect}`, () => {
    test('affected flags, dependency changes and client visibility of proposed changes; nothing is applied', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      await seeded(c);
      const before = (await c.manage()).json();

      const res = await c.impact({
        flags: { kill: true },
        advanced: {
          flags: { banner: { clientEnabled: true }, upsell: { dependencies: [{ flag: 'banner', value: 'hi' }] } },
          ttlSeconds: 30,
        },
        privacy: { privateAttributes: ['email'] },
      });
      assert.equal(res.statusCode, 200, res.body);
      const impact = res.json();
      assert.equal(impact.baseVersion, 4);
      assert.deepEqual(impact.affectedFlags, [
        { key: 'banner', reasons: ['changed', 'client_projection'] },
        { key: 'checkout', reasons: ['dependent'] },
        { key: 'kill', reasons: ['changed', 'client_projection'] },
        { key: 'upsell', reasons: ['changed'] },
      ]);
      assert.deepEqual(impact.dependencyChanges, [
        { key: 'upsell', before: [{ flag: 'checkout', value: true }], after: [{ flag: 'banner', value: 'hi' }] },
      ]);
      // kill stays in the projection (checkout needs it) with another value.
      assert.deepEqual(impact.visibility, {
        becomeVisible: [{ key: 'banner', via: 'clientVisible' }],
        becomeHidden: [],
        projectionChanged: ['kill'],
      });
      assert.deepEqual(
        impact.changes.map((e: any) => `${e.op} ${e.resourceType}:${e.key}${e.path}`),
        [
          'change flag:banner/clientEnabled',
          'change flag:kill/value',
          'change flag:upsell/dependencies',
          'change privacy:privateAttributes',
          'change settings:ttlSeconds',
        ],
      );

      // Nothing was written.
      const after = (await c.manage()).json();
      assert.equal(after.version, before.version);
      assert.deepEqual(after.flags, before.flags);
    });

    test('a hidden prerequisite entering or leaving the projection, and projected flags losing rules or metadata', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      await seeded(c);
      await c.put({
        key: 'kill',
        rules: [
          { id: 'corp', conditions: [{ attribute: 'email', operator: 'exists', values: [] }], serve: { value: true } },
        ],
      });

      const exposed = (await c.impact({ advanced: { flags: { upsell: { clientEnabled: true } } } })).json();
      // upsell needs checkout, which is already visible, so only upsell enters.
      assert.deepEqual(exposed.visibility.becomeVisible, [{ key: 'upsell', via: 'clientVisible' }]);

      const hidden = (await c.impact({ advanced: { flags: { checkout: { clientEnabled: false } } } })).json();
      assert.deepEqual(hidden.visibility.becomeHidden, [
        { key: 'checkout', via: 'clientVisible' },
        { key: 'kill', via: 'dependency' },
      ]);
      assert.deepEqual(
        hidden.affectedFlags.map((f: any) => f.key),
        ['checkout', 'kill', 'upsell'],
      );

      await c.put({ key: 'gate', type: 'bool', value: true });
      const newPrereq = (
        await c.impact({ advanced: { flags: { kill: { dependencies: [{ flag: 'gate', value: true }] } } } })
      ).json();
      assert.deepEqual(newPrereq.visibility.becomeVisible, [{ key: 'gate', via: 'dependency' }]);
      assert.deepEqual(newPrereq.dependencyChanges, [
        { key: 'kill', before: [], after: [{ flag: 'gate', value: true }] },
      ]);

      const privacy = (
        await c.impact({ privacy: { privateAttributes: ['email'], clientMetadataKeys: ['owner'] } })
      ).json();
      assert.deepEqual(privacy.visibility.projectionChanged, ['checkout', 'kill']);
      assert.deepEqual(privacy.affectedFlags, [
        { key: 'checkout', reasons: ['client_projection'] },
        { key: 'kill', reasons: ['client_projection'] },
      ]);

      const { baseVersion: _base, ...none } = (await c.impact({})).json();
      assert.deepEqual(none, {
        affectedFlags: [],
        changes: [],
        dependencyChanges: [],
        visibility: { becomeVisible: [], becomeHidden: [], projectionChanged: [] },
      });
    });

    test('400 on invalid input, with details under /changes; 401, 403, 404 on credentials and scope', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      await seeded(c);

      expectValidation(await c.impact({ flags: { ghost: true } }), '/changes/flags/ghost');
      expectValidation(await c.impact({ flags: { kill: 'yes' } }), '/changes/flags/kill');
      expectValidation(
        await c.impact({ advanced: { flags: { upsell: { dependencies: [{ flag: 'ghost', value: 1 }] } } } }),
        '/changes/advanced/flags/upsell/dependencies/0/flag',
      );
      const cycle = expectValidation(
        await c.impact({ advanced: { flags: { kill: { dependencies: [{ flag: 'upsell', value: 'none' }] } } } }),
      );
      assert.match(cycle.message, /cycle/);
      expectValidation(await c.impact({ flags: {}, extra: 1 }), '/changes/extra');
      expectValidation(
        await c.impact({ advanced: { flags: { kill: { type: 'string' } } } }),
        '/changes/advanced/flags/kill/type',
      );
      expectValidation(await c.impact({}, { body: { surprise: true } }), '/surprise');
      expectValidation(await c.impact(undefined), '/changes');

      expectError(await c.impact({}, { token: c.fx.sdk }), 401, 'unauthorized');
      expectError(await c.impact({}, { token: c.fx.pub }), 401, 'unauthorized');
      const stranger = await signUp(app);
      expectError(await c.impact({}, { token: stranger.token }), 403, 'forbidden');
      expectError(await c.impact({}, { token: (await createApp(app, stranger.token)).admin }), 403, 'forbidden');
      expectError(await c.impact({}, { body: { env: 'qa' } }), 404, 'not_found');
    });
  });
}

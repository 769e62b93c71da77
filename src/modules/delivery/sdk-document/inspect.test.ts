import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError, expectValidation, signUp } from '../../../../test/helpers/fixtures.js';
import { advancedClient } from './advanced.test-client.js';

const proposal = {
  checkout: {
    type: 'bool',
    value: false,
    clientVisible: true,
    dependencies: [{ flag: 'kill', value: false }],
    rules: [
      {
        id: 'staff',
        conditions: [{ attribute: 'email', operator: 'endsWith', values: ['@corp.example'] }],
        serve: { value: true },
      },
    ],
    overrides: { 'user-1': true },
    metadata: { owner: 'pay', cost: 3 },
  },
  kill: { type: 'bool', value: false },
};

for (const dialect of dialects) {
  describe(`POST /api/v1/advanced-config/inspect on ${dialect}`, () => {
    test('a valid document: normalised with defaults, sorted, digested; warnings about clients and removed flags', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      await c.put({ key: 'legacy', type: 'string', value: 'x' });
      const document = {
        schemaVersion: 'core/v1',
        flags: proposal,
        privacy: { privateAttributes: ['email', 'email'], clientMetadataKeys: ['owner'] },
      };

      const res = await c.inspect({ baseVersion: 1, document });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'baseVersion',
        'digest',
        'errors',
        'normalized',
        'valid',
        'warnings',
      ]);
      assert.equal(body.valid, true);
      assert.equal(body.baseVersion, 1);
      assert.deepEqual(body.errors, []);
      assert.match(body.digest, /^[0-9a-f]{64}$/);
      const { normalized } = body;
      assert.equal(normalized.schemaVersion, 'core/v1');
      assert.deepEqual(normalized.settings, { ttlSeconds: 60 }, "a section left out keeps the base version's");
      assert.deepEqual(normalized.privacy, { privateAttributes: ['email'], clientMetadataKeys: ['owner'] });
      assert.deepEqual(Object.keys(normalized.flags), ['checkout', 'kill']);
      assert.deepEqual(normalized.flags.kill, {
        type: 'bool',
        value: false,
        clientVisible: false,
        rollout: null,
        variants: null,
        rules: [],
        overrides: {},
        dependencies: [],
        metadata: {},
        description: '',
        enabled: true,
        offValue: false,
      });
      assert.deepEqual(
        body.warnings.map((w: any) => [w.code, w.path]),
        [
          ['dependency_exposed', '/document/flags/kill/clientVisible'],
          ['flag_removed', '/document/flags/legacy'],
          ['metadata_filtered', '/document/flags/checkout/metadata'],
          ['overrides_not_sent_to_clients', '/document/flags/checkout/overrides'],
          ['rule_dropped_for_clients', '/document/flags/checkout/rules/0'],
        ].sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
      );
      for (const w of body.warnings) assert.ok(w.message.length > 0);

      // Same content in another order and spelling gives the same digest; nothing was applied.
      const reordered = {
        flags: { kill: { value: false, type: 'bool', metadata: {} }, checkout: proposal.checkout },
        privacy: { clientMetadataKeys: ['owner'], privateAttributes: ['email'] },
      };
      const again = (await c.inspect({ baseVersion: 1, document: reordered })).json();
      assert.equal(again.digest, body.digest);
      assert.equal((await c.manage()).json().version, 1);
    });

    test('an invalid document is 200 valid:false with every error at its path, and no normalised form', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      const flags = {
        a: { type: 'bool', value: true, dependencies: [{ flag: 'b', value: true }] },
        b: { type: 'bool', value: true, dependencies: [{ flag: 'a', value: true }] },
        c: { type: 'bool', value: 'yes', clientVisible: 'sure' },
        d: { type: 'string', value: 'x', dependencies: [{ flag: 'ghost', value: 1 }] },
        e: 7,
        f: { type: 'bool', value: true, clientEnabled: true },
        g: { key: 'other', type: 'bool', value: true },
      };
      const res = await c.inspect({ baseVersion: 0, document: { flags } });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.valid, false);
      assert.equal(body.normalized, null);
      assert.equal(body.digest, null);
      const paths = body.errors.map((e: any) => e.path);
      for (const path of [
        '/document/flags/c/value',
        '/document/flags/c/clientVisible',
        '/document/flags/d/dependencies/0/flag',
        '/document/flags/e',
        '/document/flags/f/clientEnabled',
        '/document/flags/g/key',
      ]) {
        assert.ok(paths.includes(path), `${path} in ${JSON.stringify(paths)}`);
      }
      assert.ok(
        body.errors.every((e: any) => !/clientEnabled must/.test(e.message)),
        'messages use core/v1 names',
      );

      // Only the cycle: the set-wide checks run once every flag is valid on its own.
      const cycle = (await c.inspect({ baseVersion: 0, document: { flags: { a: flags.a, b: flags.b } } })).json();
      assert.equal(cycle.valid, false);
      assert.ok(
        cycle.errors.some((e: any) => e.code === 'dependency_cycle' && /a → b → a|b → a → b/.test(e.message)),
        JSON.stringify(cycle.errors),
      );
    });

    test('409 when baseVersion is not current, with metadata.currentVersion', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      await c.put({ key: 'kill', type: 'bool', value: false }, { key: 'kill', value: true });
      for (const baseVersion of [0, 1, 3]) {
        const error = expectError(await c.inspect({ baseVersion, document: { flags: {} } }), 409, 'version_conflict');
        assert.deepEqual(error.metadata, { currentVersion: 2 });
      }
      assert.equal((await c.inspect({ baseVersion: 2, document: { flags: {} } })).statusCode, 200);
    });

    test('400 on a malformed request, 413 over 64 KiB, 401/403/404 on credentials and scope', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      expectValidation(await c.inspect({ document: { flags: {} } }), '/baseVersion');
      expectValidation(await c.inspect({ baseVersion: -1, document: { flags: {} } }), '/baseVersion');
      expectValidation(await c.inspect({ baseVersion: 0, document: { flags: {} }, extra: true }), '/extra');
      expectValidation(
        await c.inspect({ baseVersion: 0, document: { flags: {}, delivery: {} } }),
        '/document/delivery',
      );
      expectValidation(await c.inspect({ baseVersion: 0, document: {} }), '/document/flags');
      expectValidation(
        await c.inspect({ baseVersion: 0, document: { flags: {}, schemaVersion: 'core/v2' } }),
        '/document/schemaVersion',
      );
      expectValidation(
        await c.inspect({ baseVersion: 0, document: { flags: {}, settings: { ttlSeconds: 0 } } }),
        '/document/settings/ttlSeconds',
      );
      expectValidation(
        await c.inspect({ baseVersion: 0, document: { flags: {}, privacy: { privateAttributes: [''] } } }),
        '/document/privacy/privateAttributes/0',
      );

      const big = { baseVersion: 0, document: { flags: { huge: { type: 'string', value: 'x'.repeat(64 * 1024) } } } };
      expectError(await c.inspect(big), 413, 'payload_too_large');
      // Just under the limit is inspected (and the engine reports the value as too large for a flag).
      const near = { baseVersion: 0, document: { flags: { huge: { type: 'string', value: 'x'.repeat(40 * 1024) } } } };
      const inspected = await c.inspect(near);
      assert.equal(inspected.statusCode, 200, inspected.body);
      assert.equal(inspected.json().errors[0].path, '/document/flags/huge/value');

      expectError(await c.inspect({ baseVersion: 0, document: { flags: {} } }, c.fx.sdk), 401, 'unauthorized');
      expectError(
        await c.inspect({ baseVersion: 0, document: { flags: {} } }, (await signUp(app)).token),
        403,
        'forbidden',
      );
      expectError(await c.inspect({ env: 'qa', baseVersion: 0, document: { flags: {} } }), 404, 'not_found');
    });
  });
}

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { advancedClient } from './advanced.test-client.js';
import { clientProjectionKeys, clientRules, readsPrivateAttribute } from './client-projection.js';

const rule = (id: string, ...attributes: string[]) => ({
  id,
  conditions: attributes.map((attribute) => ({ attribute, operator: 'exists', values: [] })),
  serve: { value: true },
});

describe('client projection, pure', () => {
  test('private attributes cover the attribute, what is inside it, and objects that contain it', () => {
    const privateAttributes = ['email', 'user.address'];
    for (const attribute of ['email', 'email.domain', 'user.address', 'user.address.city', 'user']) {
      assert.equal(readsPrivateAttribute(attribute, privateAttributes), true, attribute);
    }
    for (const attribute of ['emailVerified', 'plan', 'user.plan', 'userx', 'address']) {
      assert.equal(readsPrivateAttribute(attribute, privateAttributes), false, attribute);
    }
    const { kept, dropped } = clientRules(
      [rule('a', 'plan'), rule('b', 'plan', 'email'), rule('c', 'user.address.zip')] as never,
      privateAttributes,
    );
    assert.deepEqual(
      kept.map((r) => r.id),
      ['a'],
    );
    assert.deepEqual(dropped, ['b', 'c']);
  });

  test('visible flags bring their prerequisites transitively, each once, even through a cycle', () => {
    const f = (clientEnabled: boolean, ...deps: string[]) => ({
      clientEnabled,
      dependencies: deps.map((flag) => ({ flag, value: true })),
    });
    const keys = clientProjectionKeys({
      a: f(true, 'b'),
      b: f(false, 'c'),
      c: f(false, 'b'),
      d: f(false),
      e: f(true, 'a', 'ghost'),
    });
    assert.deepEqual(
      [...keys],
      [
        ['a', 'clientVisible'],
        ['b', 'dependency'],
        ['c', 'dependency'],
        ['e', 'clientVisible'],
      ],
    );
  });
});

for (const dialect of dialects) {
  describe(`client projection for pub_ keys on ${dialect}`, () => {
    test('only client-visible flags and their prerequisites, no overrides, no private rules, only listed metadata', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      await c.put(
        {
          key: 'region-ok',
          type: 'bool',
          value: true,
          rules: [rule('eu', 'country')],
          metadata: { owner: 'geo', secret: 1 },
        },
        {
          key: 'kill',
          type: 'bool',
          value: false,
          dependencies: [{ flag: 'region-ok', value: true }],
          overrides: { 'user-9': true },
        },
        { key: 'internal', type: 'string', value: 'x', metadata: { owner: 'ops' } },
        {
          key: 'checkout',
          type: 'bool',
          value: false,
          clientEnabled: true,
          dependencies: [{ flag: 'kill', value: false }],
          rules: [rule('by-email', 'email'), rule('by-plan', 'plan'), rule('by-address', 'user')],
          overrides: { 'user-1': true },
          metadata: { owner: 'payments', jira: 'PAY-1', budget: 100 },
        },
      );
      const bulk = await c.bulk({
        privacy: { privateAttributes: ['email', 'user.address', 'country'], clientMetadataKeys: ['owner', 'jira'] },
      });
      assert.equal(bulk.statusCode, 200, bulk.body);

      const res = await c.until(c.fx.pub, bulk.json().version);
      const doc = res.json();
      assert.equal(doc.audience, 'client');
      assert.deepEqual(doc.privacy, {
        privateAttributes: ['country', 'email', 'user.address'],
        clientMetadataKeys: ['jira', 'owner'],
      });
      // internal is hidden; kill and region-ok are there only because checkout needs them.
      assert.deepEqual(Object.keys(doc.flags), ['checkout', 'kill', 'region-ok']);
      assert.deepEqual(
        [doc.flags.checkout.clientVisible, doc.flags.kill.clientVisible, doc.flags['region-ok'].clientVisible],
        [true, false, false],
      );
      assert.deepEqual(doc.flags.checkout.dependencies, [{ flag: 'kill', value: false }]);
      assert.deepEqual(doc.flags.kill.dependencies, [{ flag: 'region-ok', value: true }]);
      assert.deepEqual(
        doc.flags.checkout.rules.map((r: { id: string }) => r.id),
        ['by-plan'],
      );
      assert.deepEqual(doc.flags['region-ok'].rules, []);
      for (const flag of Object.values(doc.flags) as { overrides: object }[]) assert.deepEqual(flag.overrides, {});
      assert.deepEqual(doc.flags.checkout.metadata, { owner: 'payments', jira: 'PAY-1' });
      assert.deepEqual(doc.flags['region-ok'].metadata, { owner: 'geo' });
      assert.doesNotMatch(res.body, /user-1|user-9|PAY-2|secret|internal|by-email/);

      // The server document of the same version keeps everything.
      const server = (await c.until(c.fx.sdk, doc.version)).json();
      assert.equal(server.version, doc.version);
      assert.deepEqual(Object.keys(server.flags), ['checkout', 'internal', 'kill', 'region-ok']);
      assert.equal(server.flags.checkout.rules.length, 3);
      assert.deepEqual(server.flags.checkout.overrides, { 'user-1': true });

      // Hiding checkout empties the projection.
      await c.put({ key: 'checkout', clientEnabled: false });
      const hidden = (await c.until(c.fx.pub, doc.version + 1)).json();
      assert.deepEqual(hidden.flags, {});
    });

    test('CORS: browsers may read the document with a pub_ key; impact and inspect stay without it', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      const origin = 'https://shop.example';
      const preflight = await app.inject({
        method: 'OPTIONS',
        url: '/api/v1/advanced-config',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization, if-none-match',
        },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], '*');
      assert.match(String(preflight.headers['access-control-allow-headers']), /If-None-Match/i);
      const res = await c.get(c.fx.pub, { headers: { origin } });
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(String(res.headers['access-control-expose-headers']), /ETag/);
      const impact = await c.impact({});
      assert.equal(impact.statusCode, 200);
      assert.equal(
        (await app.inject({ method: 'POST', url: '/api/v1/advanced-config/impact', headers: { origin } })).headers[
          'access-control-allow-origin'
        ],
        undefined,
      );
    });
  });
}

// Secret rotation without a version, like the other exports actions: `version` is an optional
// compare-and-swap on the route, and `ensign exports rotate-secret` takes --expected-version only when
// asked to compare.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, expectValidation, userWithApp } from '../../../../test/helpers/fixtures.js';
import { cliUser } from '../../../../test/helpers/cli-runner.js';
import { startTestServer } from '../../../../test/helpers/e2e-server.js';

const policy = { allowedHosts: ['hooks.example.com'], allowPrivateNetworks: false, resolve: {} };
const target = { name: 'warehouse', url: 'https://hooks.example.com/ensign' };

for (const dialect of dialects) {
  describe(`export secret rotation on ${dialect}`, () => {
    test('without version the current secret is rotated; with one it is a compare-and-swap', async (t) => {
      const { app } = await buildTestApp(t, { dialect, config: { exportPolicy: policy } });
      const owner = await userWithApp(app);
      const env = { appId: owner.appId, env: 'dev' };
      const created = await call(app, 'POST', '/api/v1/telemetry/exports', {
        token: owner.user.token,
        idem: true,
        payload: { ...env, ...target },
      });
      assert.equal(created.statusCode, 201, created.body);
      const { destination, signingSecret } = created.json();
      const rotate = (payload: Record<string, unknown>) =>
        call(app, 'POST', `/api/v1/telemetry/exports/${destination.id}/rotate-secret`, {
          token: owner.user.token,
          payload: { ...env, ...payload },
        });

      const first = await rotate({});
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual([first.json().destination.version, first.json().destination.secretVersion], [2, 2]);
      assert.notEqual(first.json().signingSecret, signingSecret);
      const second = await rotate({ version: 2 });
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.json().destination.secretVersion, 3);
      expectError(await rotate({ version: 2 }), 409, 'version_conflict');
      expectValidation(await rotate({ version: 0 }), '/version');
      const third = await rotate({});
      assert.deepEqual([third.statusCode, third.json().destination.version], [200, 4]);
    });
  });
}

test('ensign exports rotate-secret without --expected-version, and with a stale one', async (t) => {
  const { app, address, dir } = await startTestServer(t, 'exports-rotate-cli', { exportPolicy: policy });
  const owner = await userWithApp(app);
  const { ok, run } = cliUser(address, owner.user.token, dir);
  const scope = ['--app', owner.appId, '--env', 'dev'];
  const created = JSON.parse(
    await ok(['exports', 'create', ...scope, '--name', target.name, '--target-url', target.url, '--json']),
  );
  const rotated = JSON.parse(await ok(['exports', 'rotate-secret', created.destination.id, ...scope, '--json']));
  assert.equal(rotated.destination.secretVersion, 2);
  assert.match(rotated.signingSecret, /^whsec_/);
  const stale = await run(['exports', 'rotate-secret', created.destination.id, ...scope, '--expected-version', '1']);
  assert.equal(stale.code, 1);
  assert.match(stale.stderr, /version_conflict/);
  const checked = JSON.parse(
    await ok(['exports', 'rotate-secret', created.destination.id, ...scope, '--expected-version', '2', '--json']),
  );
  assert.equal(checked.destination.secretVersion, 3);
});

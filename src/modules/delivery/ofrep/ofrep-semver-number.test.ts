// OpenFeature providers send numbers as they are: a context `version: 1.2` is compared as the
// version 1.2.0 by the semver operators, as flagd's sem_ver does, over OFREP and remote evaluation.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, userWithApp } from '../../../../test/helpers/fixtures.js';
import { single } from './ofrep.fixtures.js';

for (const dialect of dialects) {
  describe(`semver conditions on numbers on ${dialect}`, () => {
    test('version 1.2 (a number) is 1.2.0 for semverGt, semverLt and semverEq', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await userWithApp(app);
      const rules = [
        {
          id: 'exact',
          conditions: [{ attribute: 'version', operator: 'semverEq', values: ['1.2.0'] }],
          serve: { value: 'exact' },
        },
        {
          id: 'newer',
          conditions: [{ attribute: 'version', operator: 'semverGt', values: ['1.2.0'] }],
          serve: { value: 'newer' },
        },
        {
          id: 'older',
          conditions: [{ attribute: 'version', operator: 'semverLt', values: ['1.2.0'] }],
          serve: { value: 'older' },
        },
      ];
      const set = await call(app, 'PATCH', '/api/v1/flags', {
        token: s.admin,
        payload: { appId: s.appId, env: 'prod', key: 'banner', type: 'string', value: 'none', rules },
      });
      assert.equal(set.statusCode, 200, set.body);
      for (const [version, expected] of [
        [1.2, 'exact'],
        [1.3, 'newer'],
        [2, 'newer'],
        [1.1, 'older'],
        [0.9, 'older'],
        ['1.2', 'exact'],
        [-1.2, 'none'],
      ] as const) {
        const ofrep = await single(app, 'banner', { context: { targetingKey: 'u', version } }, { token: s.sdk.prod });
        assert.equal(ofrep.statusCode, 200, ofrep.body);
        assert.equal(ofrep.json().value, expected, `OFREP version ${version}`);
        const remote = await call(app, 'POST', '/api/v1/evaluate', {
          token: s.sdk.prod,
          payload: { flagKey: 'banner', context: { targetingKey: 'u', version } },
        });
        assert.equal(remote.json().value, expected, `evaluate version ${version}: ${remote.body}`);
      }
    });
  });
}

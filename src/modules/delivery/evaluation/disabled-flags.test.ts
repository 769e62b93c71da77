// The per-flag off switch on every route that serves flags: a disabled flag skips its overrides,
// rules, rollout and variants and serves offValue with reason DISABLED on POST /api/v1/evaluate and
// OFREP (single and bulk); the core/v1 document carries enabled and offValue so local evaluators do
// the same; the legacy documents serve offValue as the flag's value with no rules and no overrides.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { bearer } from '../../../../test/helpers/fixtures.js';
import { getConfig } from '../../../../test/helpers/delivery-fixtures.js';
import { compileFlagSet, type FlagDefinition } from '@ensign/engine';
import { bulk, byKey, single } from '../ofrep/ofrep.fixtures.js';
import { changeFlags, evaluate, FLAGS, flagsFixture } from './evaluation.fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

const OFF = { checkout: 'off', limit: 0, banner: { text: 'off' } } as const;

for (const dialect of dialects) {
  describe(`disabled flags on every route on ${dialect}`, () => {
    test('evaluate, OFREP single and bulk, core/v1, /config and /public-config all serve offValue', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const enabledVersion = (await getConfig(test.app, fx.sdk)).json().version;
      // checkout has an override and a rule, limit a rollout, banner variants: all disabled.
      await changeFlags(
        test,
        fx,
        (Object.keys(OFF) as (keyof typeof OFF)[]).map((key) => ({
          ...FLAGS.find((f) => f.key === key)!,
          enabled: false,
          offValue: OFF[key],
        })),
      );
      await waitFor(async () => (await getConfig(test.app, fx.sdk)).json().version >= enabledVersion + 3);
      const contexts = [
        {},
        { targetingKey: 'user-vip' },
        { targetingKey: 'u-1', plan: 'beta', country: 'NO' },
        { targetingKey: 'u-2' },
      ];

      for (const context of contexts) {
        const all = await evaluate(test.app, fx.sdk, { context });
        assert.equal(all.statusCode, 200, all.body);
        const results = Object.fromEntries(all.json().results.map((r: { key: string }) => [r.key, r]));
        for (const [key, offValue] of Object.entries(OFF)) {
          const one = (await evaluate(test.app, fx.sdk, { flagKey: key, context })).json();
          assert.deepEqual(
            [one.value, one.reason, one.fallbackClass, one.ruleId, one.variant],
            [offValue, 'DISABLED', 'none', undefined, undefined],
            key,
          );
          assert.deepEqual([results[key].value, results[key].reason], [offValue, 'DISABLED']);
        }
        // An enabled flag next to them is untouched.
        assert.equal(results['dark-mode'].reason, 'STATIC');

        for (const token of [fx.sdk, fx.pub]) {
          const ofrep = byKey(await bulk(test.app, { context }, { token }));
          for (const [key, offValue] of Object.entries(OFF)) {
            const res = await single(test.app, key, { context }, { token });
            assert.equal(res.statusCode, 200, res.body);
            assert.deepEqual(
              [res.json().value, res.json().reason, res.json().variant],
              [offValue, 'DISABLED', undefined],
            );
            assert.deepEqual([ofrep[key]!.value, ofrep[key]!.reason], [offValue, 'DISABLED']);
          }
        }
      }

      // A disabled flag with a rollout and no targeting key is still just its off value (no TARGETING_KEY_MISSING).
      assert.equal((await single(test.app, 'limit', { context: {} }, { token: fx.sdk })).json().reason, 'DISABLED');

      for (const [token, route] of [
        [fx.sdk, '/api/v1/config'],
        [fx.pub, '/api/v1/public-config'],
      ] as const) {
        const doc = (await getConfig(test.app, token, {}, route)).json().doc;
        for (const [key, offValue] of Object.entries(OFF)) {
          assert.deepEqual(doc.flags[key].value, offValue, `${route} ${key}`);
          assert.equal(doc.rules[key], undefined, `${route}: no rules for ${key}`);
          assert.equal(doc.overrides[key], undefined, `${route}: no overrides for ${key}`);
        }
        assert.equal(doc.flags['dark-mode'].value, false);
      }

      for (const token of [fx.sdk, fx.pub]) {
        const res = await test.app.inject({ method: 'GET', url: '/api/v1/advanced-config', headers: bearer(token) });
        assert.equal(res.statusCode, 200, res.body);
        const flags = res.json().flags;
        for (const [key, offValue] of Object.entries(OFF)) {
          assert.equal(flags[key].enabled, false);
          assert.deepEqual(flags[key].offValue, offValue);
        }
        assert.equal(flags['dark-mode'].enabled, true);
        assert.equal(flags['dark-mode'].offValue, false);
        // A local evaluator fed the document answers as the server does.
        const local = compileFlagSet(
          Object.entries(flags as Record<string, { clientVisible: boolean }>).map(
            ([key, { clientVisible, ...flag }]) =>
              ({ ...flag, key, clientEnabled: clientVisible }) as unknown as FlagDefinition,
          ),
        );
        for (const context of contexts) {
          for (const [key, offValue] of Object.entries(OFF))
            assert.deepEqual(
              [local.evaluate(key, context).value, local.evaluate(key, context).reason],
              [offValue, 'DISABLED'],
            );
        }
      }

      // Enabled again, the targeting is back.
      await changeFlags(test, fx, [{ ...FLAGS.find((f) => f.key === 'checkout')!, enabled: true }]);
      await waitFor(
        async () =>
          (await evaluate(test.app, fx.sdk, { flagKey: 'checkout', context: { targetingKey: 'user-vip' } })).json()
            .value === 'vip',
      );
      const doc = (await getConfig(test.app, fx.sdk)).json().doc;
      assert.equal(doc.flags.checkout.value, 'classic');
      assert.deepEqual(doc.overrides.checkout, { 'user-vip': 'vip' });
    });
  });
}

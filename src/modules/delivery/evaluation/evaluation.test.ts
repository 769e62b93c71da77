// POST /api/v1/evaluate: details for one, several and all flags, fallbacks and defaultValue, and
// every status the seed lists (200, 400, 401, 403, 405, 413, 500) in the legacy error shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import { bearer } from '../../../../test/helpers/fixtures.js';
import {
  changeFlags,
  evaluate,
  expectLegacyError,
  FLAG_KEYS,
  flagsFixture,
  revokeKey,
  storeInvalidConfig,
} from './evaluation.fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

const DETAIL_FIELDS = [
  'key',
  'value',
  'variant',
  'reason',
  'ruleId',
  'errorCode',
  'errorMessage',
  'origin',
  'fallbackClass',
  'version',
  'flagMetadata',
];

for (const dialect of dialects) {
  describe(`POST /api/v1/evaluate on ${dialect}`, () => {
    // Each test makes its own user, app and flags (flagsFixture), so they share one app.
    const shared = suiteTestApp({ dialect });
    test("one flag: a detail with origin remote, the version and all of the flag's metadata", async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const res = await evaluate(test.app, fx.sdk, { flagKey: 'dark-mode', context: { targetingKey: 'user-1' } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const version = res.json().version;
      assert.ok(version >= 6);
      assert.deepEqual(res.json(), {
        key: 'dark-mode',
        value: false,
        reason: 'STATIC',
        origin: 'remote',
        fallbackClass: 'none',
        version,
        flagMetadata: { team: 'web', ticket: 42, internal: { deep: true } },
      });
      for (const field of Object.keys(res.json())) assert.ok(DETAIL_FIELDS.includes(field), field);
    });

    test('targeting: rules with ruleId, overrides, rollouts and variant splits; DEFAULT when nothing applies', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const one = async (flagKey: string, context: object) =>
        (await evaluate(test.app, fx.sdk, { flagKey, context })).json();
      assert.deepEqual(pick(await one('checkout', { targetingKey: 'u', plan: 'beta', country: 'NO' })), {
        value: 'new',
        reason: 'TARGETING_MATCH',
        ruleId: 'beta',
        fallbackClass: 'none',
      });
      assert.deepEqual(pick(await one('checkout', { targetingKey: 'u', plan: 'beta', country: 'SE' })), {
        value: 'classic',
        reason: 'DEFAULT',
        fallbackClass: 'none',
      });
      assert.deepEqual(pick(await one('checkout', { targetingKey: 'user-vip' })), {
        value: 'vip',
        reason: 'TARGETING_MATCH',
        fallbackClass: 'none',
      });
      const limits = new Set<unknown>();
      const colors = new Set<unknown>();
      for (let i = 0; i < 40; i++) {
        const limit = await one('limit', { targetingKey: `user-${i}` });
        assert.equal(limit.reason, 'SPLIT');
        limits.add(limit.value);
        const banner = await one('banner', { targetingKey: `user-${i}` });
        assert.equal(banner.reason, 'SPLIT');
        assert.equal(banner.value.color, banner.variant);
        colors.add(banner.variant);
      }
      assert.deepEqual([...limits].sort(), [10, 20]);
      assert.deepEqual([...colors].sort(), ['blue', 'red']);
      assert.deepEqual(pick(await one('limit', {})), {
        value: 10,
        reason: 'DEFAULT',
        fallbackClass: 'targeting_key_missing',
      });
      assert.deepEqual(pick(await one('beta-tools', { targetingKey: 'u' })), {
        value: true,
        reason: 'DISABLED',
        fallbackClass: 'dependency_unmet',
      });
    });

    test('flagKeys answer in request order; no keys means every flag sorted by key; pub-hidden flags included', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const listed = (
        await evaluate(test.app, fx.sdk, { flagKeys: ['limit', 'missing', 'internal'], context: { targetingKey: 'u' } })
      ).json();
      assert.deepEqual(
        listed.results.map((r: { key: string }) => r.key),
        ['limit', 'missing', 'internal'],
      );
      assert.deepEqual(pick(listed.results[1]), {
        value: null,
        reason: 'ERROR',
        errorCode: 'FLAG_NOT_FOUND',
        fallbackClass: 'flag_not_found',
      });
      assert.deepEqual(listed.results[1].flagMetadata, {});
      assert.ok(listed.results.every((r: { version: number }) => r.version === listed.version));
      const all = (await evaluate(test.app, fx.sdk, { context: {} })).json();
      assert.deepEqual(
        all.results.map((r: { key: string }) => r.key),
        FLAG_KEYS,
      );
      assert.deepEqual(Object.keys(all), ['version', 'results']);
    });

    test('fallbacks serve defaultValue; a defaultValue of another type than the flag is TYPE_MISMATCH', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const missing = (
        await evaluate(test.app, fx.sdk, { flagKey: 'nope', context: {}, defaultValue: 'fallback' })
      ).json();
      assert.deepEqual(pick(missing), {
        value: 'fallback',
        reason: 'ERROR',
        errorCode: 'FLAG_NOT_FOUND',
        fallbackClass: 'flag_not_found',
      });
      const mismatch = (
        await evaluate(test.app, fx.sdk, { flagKey: 'dark-mode', context: {}, defaultValue: 'yes' })
      ).json();
      assert.deepEqual(pick(mismatch), {
        value: 'yes',
        reason: 'ERROR',
        errorCode: 'TYPE_MISMATCH',
        fallbackClass: 'type_mismatch',
      });
      assert.match(mismatch.errorMessage, /bool/);
      const json = (await evaluate(test.app, fx.sdk, { flagKey: 'banner', context: {}, defaultValue: null })).json();
      assert.equal(json.reason, 'DEFAULT', 'null stands for a json flag');
      const matching = (
        await evaluate(test.app, fx.sdk, { flagKey: 'dark-mode', context: {}, defaultValue: true })
      ).json();
      assert.deepEqual(
        pick(matching),
        { value: false, reason: 'STATIC', fallbackClass: 'none' },
        'a success ignores defaultValue',
      );
      const invalid = (
        await evaluate(test.app, fx.sdk, { flagKey: 'limit', context: { targetingKey: 7 }, defaultValue: 1 })
      ).json();
      assert.deepEqual(pick(invalid), {
        value: 1,
        reason: 'ERROR',
        errorCode: 'INVALID_CONTEXT',
        fallbackClass: 'invalid_context',
      });
    });

    test('a __proto__ key in a context is an ordinary attribute: nothing is inherited from it', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const payload =
        '{"flagKey":"checkout","context":{"targetingKey":"u","country":"NO","__proto__":{"plan":"beta"}}}';
      const res = await test.app.inject({
        method: 'POST',
        url: '/api/v1/evaluate',
        headers: { ...bearer(fx.sdk), 'content-type': 'application/json' },
        payload,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(pick(res.json()), { value: 'classic', reason: 'DEFAULT', fallbackClass: 'none' });
      assert.equal(({} as Record<string, unknown>).plan, undefined);
    });

    test('a change is answered from the next version on', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const before = (await evaluate(test.app, fx.sdk, { flagKey: 'dark-mode', context: {} })).json();
      await changeFlags(test, fx, [{ key: 'dark-mode', type: 'bool', value: true }]);
      await waitFor(
        async () => (await evaluate(test.app, fx.sdk, { flagKey: 'dark-mode', context: {} })).json().value === true,
        1000,
      );
      const after = (await evaluate(test.app, fx.sdk, { flagKey: 'dark-mode', context: {} })).json();
      assert.equal(after.version, before.version + 1);
    });

    test('400 VALIDATION_ERROR for bodies that are not evaluation requests', async () => {
      const test = shared();
      const fx = await flagsFixture(test, []);
      const bad: unknown[] = [
        { flagKey: 'a', flagKeys: ['b'], context: {} },
        { flagKey: 'a' },
        { flagKey: 'a', context: 'user-1' },
        { flagKey: 'a', context: [] },
        { flagKey: '', context: {} },
        { flagKey: 'x'.repeat(129), context: {} },
        { flagKeys: [], context: {} },
        { flagKeys: Array.from({ length: 101 }, (_, i) => `f${i}`), context: {} },
        { flagKeys: ['a', 'a'], context: {} },
        { flagKey: 'a', context: {}, extra: 1 },
      ];
      for (const payload of bad) expectLegacyError(await evaluate(test.app, fx.sdk, payload), 400, 'VALIDATION_ERROR');
      const notJson = await test.app.inject({
        method: 'POST',
        url: '/api/v1/evaluate',
        headers: { ...bearer(fx.sdk), 'content-type': 'application/json' },
        payload: '{"flagKey":',
      });
      expectLegacyError(notJson, 400, 'VALIDATION_ERROR');
      const ok = await evaluate(test.app, fx.sdk, {
        flagKeys: Array.from({ length: 100 }, (_, i) => `f${i}`),
        context: {},
      });
      assert.equal(ok.json().results.length, 100);
    });

    test('401 for missing, invalid and revoked keys; 403 SERVER_KEY_REQUIRED for pub_ and management credentials', async () => {
      const test = shared();
      const fx = await flagsFixture(test, []);
      const body = { flagKey: 'a', context: {} };
      const inject = (headers: Record<string, string>) =>
        test.app.inject({ method: 'POST', url: '/api/v1/evaluate', headers, payload: body });
      expectLegacyError(await inject({}), 401, 'MISSING_CREDENTIAL');
      expectLegacyError(await inject({ 'x-api-key': fx.sdk }), 401, 'MISSING_CREDENTIAL');
      expectLegacyError(await inject(bearer('nonsense')), 401, 'INVALID_CREDENTIAL');
      expectLegacyError(
        await inject(bearer('sdk_unknownunknownunknownunknownunknown00000')),
        401,
        'INVALID_CREDENTIAL',
      );
      for (const token of [fx.pub, fx.admin, fx.user.token])
        expectLegacyError(await inject(bearer(token)), 403, 'SERVER_KEY_REQUIRED');
      assert.equal((await inject(bearer(fx.sdk))).statusCode, 200);
      await revokeKey(test.app, fx, fx.sdk);
      expectLegacyError(await inject(bearer(fx.sdk)), 401, 'KEY_REVOKED');
      // A revoked key is no credential of any type: revocation is told before the type rule.
      await revokeKey(test.app, fx, fx.pub);
      expectLegacyError(await inject(bearer(fx.pub)), 401, 'KEY_REVOKED');
      expectLegacyError(
        await inject(bearer('pub_unknownunknownunknownunknownunknown00000')),
        401,
        'INVALID_CREDENTIAL',
      );
    });

    test('405 METHOD_NOT_ALLOWED with Allow: POST for every other method', async () => {
      const test = shared();
      const fx = await flagsFixture(test, []);
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as const) {
        const res = await test.app.inject({ method, url: '/api/v1/evaluate', headers: bearer(fx.sdk) });
        assert.equal(res.statusCode, 405, method);
        assert.equal(res.headers.allow, 'POST', method);
        if (method !== 'HEAD') expectLegacyError(res, 405, 'METHOD_NOT_ALLOWED');
      }
    });

    test('413 PAYLOAD_TOO_LARGE past 64 KiB; a body just under it is evaluated', async () => {
      const test = shared();
      const fx = await flagsFixture(test, []);
      const sized = (bytes: number) => {
        const skeleton = JSON.stringify({ flagKey: 'a', context: { pad: '' } });
        return JSON.stringify({ flagKey: 'a', context: { pad: 'x'.repeat(bytes - skeleton.length) } });
      };
      const inject = (payload: string) =>
        test.app.inject({
          method: 'POST',
          url: '/api/v1/evaluate',
          headers: { ...bearer(fx.sdk), 'content-type': 'application/json' },
          payload,
        });
      assert.equal((await inject(sized(64 * 1024))).statusCode, 200);
      expectLegacyError(await inject(sized(64 * 1024 + 1)), 413, 'PAYLOAD_TOO_LARGE');
    });

    test('500 CONFIG_INVALID when the stored configuration cannot be compiled', async (t) => {
      const test = await buildTestApp(t, { dialect, captureLogs: true });
      const fx = await flagsFixture(test);
      await storeInvalidConfig(test, fx);
      await waitFor(
        async () => (await evaluate(test.app, fx.sdk, { flagKey: 'dark-mode', context: {} })).statusCode === 500,
        1000,
      );
      const res = await evaluate(test.app, fx.sdk, { context: {} });
      expectLegacyError(res, 500, 'CONFIG_INVALID');
      assert.doesNotMatch(res.body, /nope|stack|select/i, 'no internals in the body');
    });
  });
}

function pick(detail: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const field of ['value', 'reason', 'ruleId', 'errorCode', 'fallbackClass'])
    if (detail[field] !== undefined) out[field] = detail[field];
  return out;
}

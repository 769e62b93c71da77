// OFREP single-flag evaluation (POST /api/ofrep/v1/evaluate/flags/{key}): success bodies of every
// flag type, what pub_ keys see, and every error status with OFREP's error body.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import { bearer } from '../../../../test/helpers/fixtures.js';
import { flagsFixture, revokeKey, storeInvalidConfig } from '../evaluation/evaluation.fixtures.js';
import { expectOfrepError, OFREP, single } from './ofrep.fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

for (const dialect of dialects) {
  describe(`OFREP single-flag evaluation on ${dialect}`, () => {
    // Each test makes its own user, app and flags (flagsFixture), so they share one app.
    const shared = suiteTestApp({ dialect });
    test('success bodies for bool, string, number and json flags, by Bearer or X-API-Key', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      const ok = async (key: string, context: object, apiKey = false) => {
        const res = await single(test.app, key, { context }, { token: fx.sdk, apiKey });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        return res.json();
      };
      assert.deepEqual(await ok('dark-mode', {}), {
        key: 'dark-mode',
        value: false,
        reason: 'STATIC',
        metadata: { team: 'web', ticket: 42 },
      });
      assert.deepEqual(await ok('checkout', { targetingKey: 'u', plan: 'beta', country: 'NO' }, true), {
        key: 'checkout',
        value: 'new',
        reason: 'TARGETING_MATCH',
      });
      assert.deepEqual(
        await ok('checkout', { targetingKey: 'u' }),
        { key: 'checkout', value: 'classic', reason: 'STATIC' },
        'no rule applied: the configured value',
      );
      const limit = await ok('limit', { targetingKey: 'user-1' });
      assert.equal(limit.reason, 'SPLIT');
      assert.ok([10, 20].includes(limit.value));
      const banner = await ok('banner', { targetingKey: 'user-1' });
      assert.deepEqual(Object.keys(banner).sort(), ['key', 'reason', 'value', 'variant']);
      assert.equal(banner.value.color, banner.variant);
      assert.deepEqual(await ok('beta-tools', {}), { key: 'beta-tools', value: true, reason: 'DISABLED' });
    });

    test('pub_ keys evaluate client-visible flags only, with the metadata keys privacy allows', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      assert.deepEqual((await single(test.app, 'dark-mode', { context: {} }, { token: fx.pub })).json(), {
        key: 'dark-mode',
        value: false,
        reason: 'STATIC',
      });
      const hidden = expectOfrepError(
        await single(test.app, 'internal', { context: {} }, { token: fx.pub }),
        404,
        'FLAG_NOT_FOUND',
        'internal',
      );
      const missing = expectOfrepError(
        await single(test.app, 'no-such', { context: {} }, { token: fx.pub }),
        404,
        'FLAG_NOT_FOUND',
        'no-such',
      );
      assert.equal(
        hidden.errorDetails.replace('internal', 'x'),
        missing.errorDetails.replace('no-such', 'x'),
        'a hidden flag looks missing',
      );
      assert.equal((await single(test.app, 'internal', { context: {} }, { token: fx.sdk })).json().value, 'secret');

      const privacy = await test.app.inject({
        method: 'PATCH',
        url: '/api/v1/flags/bulk',
        headers: bearer(fx.admin),
        payload: { appId: fx.target.appId, env: 'prod', privacy: { clientMetadataKeys: ['team'] } },
      });
      assert.equal(privacy.statusCode, 200, privacy.body);
      await waitFor(
        async () =>
          (await single(test.app, 'dark-mode', { context: {} }, { token: fx.pub })).json().metadata?.team === 'web',
        1000,
      );
      assert.deepEqual((await single(test.app, 'dark-mode', { context: {} }, { token: fx.pub })).json().metadata, {
        team: 'web',
      });
    });

    test('404 FLAG_NOT_FOUND; 400 TARGETING_KEY_MISSING for splits without a key; {} is a valid context', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      expectOfrepError(
        await single(test.app, 'nope', { context: { targetingKey: 'u' } }, { token: fx.sdk }),
        404,
        'FLAG_NOT_FOUND',
        'nope',
      );
      expectOfrepError(
        await single(test.app, 'limit', { context: {} }, { token: fx.sdk }),
        400,
        'TARGETING_KEY_MISSING',
        'limit',
      );
      expectOfrepError(
        await single(test.app, 'banner', { context: { targetingKey: '' } }, { token: fx.sdk }),
        400,
        'TARGETING_KEY_MISSING',
        'banner',
      );
      assert.equal((await single(test.app, 'checkout', { context: {} }, { token: fx.sdk })).statusCode, 200);
      const colon = await single(test.app, 'a:b.c_d-e', { context: {} }, { token: fx.sdk });
      expectOfrepError(colon, 404, 'FLAG_NOT_FOUND', 'a:b.c_d-e');
      // The longest key, percent-encoded as the web provider sends it, still reaches the route.
      const longest = `a${':'.repeat(127)}`;
      expectOfrepError(
        await single(test.app, longest, { context: {} }, { token: fx.sdk }),
        404,
        'FLAG_NOT_FOUND',
        longest,
      );
    });

    test('400 INVALID_CONTEXT and PARSE_ERROR bodies carry the key', async () => {
      const test = shared();
      const fx = await flagsFixture(test);
      for (const payload of [
        { context: { targetingKey: 42 } },
        { context: 'user' },
        { context: [] },
        {},
        { context: null },
      ]) {
        expectOfrepError(
          await single(test.app, 'dark-mode', payload, { token: fx.sdk }),
          400,
          'INVALID_CONTEXT',
          'dark-mode',
        );
      }
      const raw = (payload: string) =>
        test.app.inject({
          method: 'POST',
          url: `${OFREP}/evaluate/flags/dark-mode`,
          headers: { ...bearer(fx.sdk), 'content-type': 'application/json' },
          payload,
        });
      expectOfrepError(await raw('{"context":'), 400, 'PARSE_ERROR', 'dark-mode');
      assert.equal(
        (await single(test.app, 'dark-mode', { context: {}, futureField: 1 }, { token: fx.sdk })).statusCode,
        200,
        'unknown top-level fields are ignored',
      );
    });

    test('a pathological targeting expression cannot stall the server: pub_ contexts run in linear time', async () => {
      const test = shared();
      const fx = await flagsFixture(test, [
        {
          key: 'redos',
          type: 'bool',
          value: false,
          clientEnabled: true,
          rules: [
            {
              id: 'r',
              conditions: [{ attribute: 'name', operator: 'matches', values: ['(a+)+$'] }],
              serve: { value: true },
            },
          ],
        },
      ]);
      // A backtracking engine took minutes on 40 characters of this; RE2 answers 10,000 at once.
      const res = await single(test.app, 'redos', { context: { name: `${'a'.repeat(10_000)}!` } }, { token: fx.pub });
      assert.deepEqual(
        res.json(),
        { key: 'redos', value: false, reason: 'STATIC' },
        'no rule applied (OFREP says STATIC for DEFAULT)',
      );
      assert.equal(
        (await single(test.app, 'redos', { context: { name: 'aaa' } }, { token: fx.pub })).json().value,
        true,
      );
    });

    test('401 and 403 bodies: missing, invalid, revoked keys and management credentials', async () => {
      const test = shared();
      const fx = await flagsFixture(test, []);
      const call = (headers: Record<string, string>) => single(test.app, 'f', { context: {} }, { headers });
      expectOfrepError(await call({}), 401, 'MISSING_CREDENTIAL', 'f');
      expectOfrepError(await call({ authorization: 'Basic abc' }), 401, 'INVALID_CREDENTIAL', 'f');
      expectOfrepError(
        await call({ 'x-api-key': 'pub_unknownunknownunknownunknownunknown000000' }),
        401,
        'INVALID_CREDENTIAL',
        'f',
      );
      for (const token of [fx.admin, fx.user.token])
        expectOfrepError(await call(bearer(token)), 403, 'WRONG_KEY_TYPE', 'f');
      const unauthorized = await call({});
      assert.equal(unauthorized.headers['www-authenticate'], 'Bearer');
      await revokeKey(test.app, fx, fx.pub);
      expectOfrepError(await call({ 'x-api-key': fx.pub }), 401, 'KEY_REVOKED', 'f');
    });

    test('413 past 64 KiB and 500 PARSE_ERROR for a stored configuration that cannot be compiled', async (t) => {
      const test = await buildTestApp(t, { dialect, captureLogs: true });
      const fx = await flagsFixture(test);
      const big = await single(test.app, 'dark-mode', { context: { pad: 'x'.repeat(64 * 1024) } }, { token: fx.sdk });
      expectOfrepError(big, 413, 'PAYLOAD_TOO_LARGE', 'dark-mode');
      await storeInvalidConfig(test, fx);
      await waitFor(
        async () => (await single(test.app, 'dark-mode', { context: {} }, { token: fx.sdk })).statusCode === 500,
        1000,
      );
      expectOfrepError(
        await single(test.app, 'dark-mode', { context: {} }, { token: fx.sdk }),
        500,
        'PARSE_ERROR',
        'dark-mode',
      );
    });

    test('unknown OFREP paths and methods answer in the OFREP error shape', async () => {
      const test = shared();
      const fx = await flagsFixture(test, []);
      const res = await test.app.inject({ method: 'GET', url: `${OFREP}/evaluate/flags/x`, headers: bearer(fx.sdk) });
      expectOfrepError(res, 404, 'NOT_FOUND');
    });
  });
}

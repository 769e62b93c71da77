// What an insights request may ask for (windows, dimensions, measures, filters) and who may ask.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError, expectValidation, signUp } from '../../../../test/helpers/fixtures.js';
import { DAY, HOUR, T0, telemetryApp } from '../ingestion/telemetry.fixtures.js';
import { events, iso, query } from './insights.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

for (const dialect of dialects) {
  describe(`insights request rules on ${dialect}`, () => {
    test('window, dimension, measure and filter rules; access; another app is 403', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      const base = {
        appId: s.appId,
        env: 'prod',
        from: iso(T0 - HOUR),
        to: iso(T0),
        grain: 'hour',
        measures: ['events'],
      };
      expectValidation(await query(app, s.user.token, { ...base, from: iso(T0), to: iso(T0 - HOUR) }), '/to');
      expectValidation(await query(app, s.user.token, { ...base, from: iso(T0 - 2 * DAY) }), '/filters');
      expectValidation(
        await query(app, s.user.token, { ...base, from: iso(T0 - 91 * DAY), filters: { flagKey: 'shown' } }),
        '/to',
      );
      assert.equal(
        (
          await query(app, s.user.token, {
            ...base,
            from: iso(T0 - 30 * DAY),
            filters: { flagKey: ['shown', 'hidden'] },
          })
        ).statusCode,
        200,
      );
      assert.equal(
        (await query(app, s.user.token, { ...base, from: iso(T0 - 3 * DAY), filters: { experimentId: 'exp' } }))
          .statusCode,
        200,
      );
      expectValidation(await query(app, s.user.token, { ...base, dimensions: ['source'] }), '/dimensions/0');
      expectValidation(
        await query(app, s.user.token, { ...base, dimensions: ['flagKey', 'variant', 'kind', 'reason'] }),
        '/dimensions',
      );
      expectValidation(await query(app, s.user.token, { ...base, measures: [] }), '/measures');
      expectValidation(
        await query(app, s.user.token, { ...base, filters: { targetingKey: 'x' } }),
        '/filters/targetingKey',
      );
      expectValidation(await query(app, s.user.token, { ...base, extra: 1 }), '/extra');
      expectValidation(
        await events(app, s.user.token, {
          appId: s.appId,
          env: 'prod',
          from: iso(T0 - 8 * DAY),
          to: iso(T0),
          kinds: ['exposure'],
        }),
        '/to',
      );
      expectValidation(
        await events(app, s.user.token, { appId: s.appId, env: 'prod', from: iso(T0 - DAY), to: iso(T0), kinds: [] }),
        '/kinds',
      );
      expectValidation(
        await events(app, s.user.token, {
          appId: s.appId,
          env: 'prod',
          from: iso(T0 - DAY),
          to: iso(T0),
          kinds: ['exposure'],
          limit: 101,
        }),
        '/limit',
      );
      const stranger = await signUp(app);
      expectError(await query(app, stranger.token, base), 403, 'forbidden');
      expectError(await query(app, s.sdkProd, base), 401, 'unauthorized');
      expectError(
        await events(app, s.pub, {
          appId: s.appId,
          env: 'prod',
          from: iso(T0 - DAY),
          to: iso(T0),
          kinds: ['exposure'],
        }),
        401,
        'unauthorized',
      );
    });
  });
}

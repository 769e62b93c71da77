import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, signUp, userWithApp } from '../../../../test/helpers/fixtures.js';
import { eventId, sendBatch, T0 } from '../ingestion/telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

const DAY = 86_400_000;

for (const dialect of dialects) {
  describe(`cleanup on ${dialect}`, () => {
    test('inventory, readiness, reconcile and a staged plan; reads only', async (t) => {
      const clock = testClock();
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await userWithApp(app);
      const patch = async (env: string, payload: Record<string, unknown>) => {
        const res = await call(app, 'PATCH', '/api/v1/flags', {
          token: s.user.token,
          payload: { appId: s.appId, env, ...payload },
        });
        assert.equal(res.statusCode, 200, res.body);
      };
      for (const env of ['dev', 'staging', 'prod']) {
        await patch(env, { key: 'launched', type: 'bool', value: false, rollout: { percentage: 100, value: true } });
        await patch(env, { key: 'half', type: 'bool', value: false, rollout: { percentage: 50, value: true } });
        await patch(env, { key: 'used', type: 'string', value: 'a' });
      }
      const decisions = [1, 2, 3].map((i) => ({
        id: eventId('d'),
        kind: 'decision',
        timestamp: new Date(T0 - i * 60_000).toISOString(),
        flagKey: 'used',
        reason: 'STATIC',
      }));
      assert.equal((await sendBatch(app, s.sdk.prod!, decisions)).statusCode, 200);
      const versionsBefore = (
        await call(app, 'GET', `/api/v1/flags?appId=${s.appId}&env=prod`, { token: s.user.token })
      ).json().version;

      // Forty days on, nothing was changed or evaluated within the last 30 days.
      const later = new Date(Date.now() + 40 * DAY).toISOString();
      const body = {
        appId: s.appId,
        now: later,
        codeReferences: [
          { flagKey: 'launched', path: 'src/checkout.ts', line: 12 },
          { flagKey: 'ghost', path: 'src/old.ts' },
        ],
      };
      const res = await call(app, 'POST', '/api/v1/cleanup', { token: s.user.token, payload: body });
      assert.equal(res.statusCode, 200, res.body);
      const report = res.json();
      assert.deepEqual(report.envs, ['dev', 'staging', 'prod']);
      assert.equal(report.asOf, later);
      const prodLaunched = report.inventory.find((e: any) => e.env === 'prod' && e.flagKey === 'launched');
      assert.equal(prodLaunched.servingShape, 'fully_rolled_out');
      assert.equal(prodLaunched.servedValue, true);
      assert.equal(prodLaunched.lastChange.operation, 'flag.create');
      const prodUsed = report.inventory.find((e: any) => e.env === 'prod' && e.flagKey === 'used');
      assert.equal(prodUsed.evaluations.count, 0, 'evaluations older than the window do not count');
      assert.equal(
        prodUsed.evaluations.lastSeenAt,
        new Date(Math.floor((T0 - 60_000) / 3_600_000) * 3_600_000).toISOString(),
      );
      const ready = Object.fromEntries(report.readiness.map((r: any) => [r.flagKey, r.ready]));
      assert.deepEqual(ready, { half: false, launched: true, used: true });
      assert.deepEqual(
        report.reconcile.missingInService.map((m: any) => m.flagKey),
        ['ghost'],
      );
      assert.deepEqual(report.reconcile.unreferencedInCode, ['half', 'used']);
      assert.deepEqual(
        report.plan.stages.map((st: any) => st.stage),
        ['make_static', 'remove_code_references', 'delete_flag'],
      );
      assert.deepEqual(
        report.plan.stages[0].steps.map((st: any) => `${st.env}:${st.flagKey}`),
        ['dev:launched', 'staging:launched', 'prod:launched'],
      );
      assert.deepEqual(
        report.plan.stages[2].steps.map((st: any) => st.flagKey),
        ['launched', 'used'],
      );

      // Deterministic, and nothing changed.
      const again = await call(app, 'POST', '/api/v1/cleanup', { token: s.user.token, payload: body });
      assert.equal(again.body, res.body);
      assert.equal(
        (await call(app, 'GET', `/api/v1/flags?appId=${s.appId}&env=prod`, { token: s.user.token })).json().version,
        versionsBefore,
      );

      // Evaluated within the window: blocked.
      const soon = await call(app, 'POST', '/api/v1/cleanup', {
        token: s.admin,
        payload: { appId: s.appId, envs: ['production'], staleAfterDays: 30, now: new Date(T0).toISOString() },
      });
      assert.equal(soon.statusCode, 200, soon.body);
      const used = soon.json().readiness.find((r: any) => r.flagKey === 'used');
      assert.ok(used.blockers.some((b: any) => b.code === 'recently_evaluated' && b.env === 'prod'));
      assert.equal(soon.json().inventory.find((e: any) => e.flagKey === 'used').evaluations.count, 3);
      assert.deepEqual(soon.json().envs, ['prod']);
    });

    test('errors: credentials, unknown and foreign apps, bad bodies, the 256 KiB limit', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await userWithApp(app);
      const other = await signUp(app);
      const ok = { appId: s.appId };
      expectError(await call(app, 'POST', '/api/v1/cleanup', { payload: ok }), 401, 'unauthorized');
      assert.equal((await call(app, 'POST', '/api/v1/cleanup', { token: s.sdk.prod!, payload: ok })).statusCode, 401);
      expectError(await call(app, 'POST', '/api/v1/cleanup', { token: other.token, payload: ok }), 403, 'forbidden');
      expectError(
        await call(app, 'POST', '/api/v1/cleanup', { token: s.user.token, payload: { appId: 'app_missing' } }),
        404,
        'not_found',
      );
      expectError(
        await call(app, 'POST', '/api/v1/cleanup', {
          token: s.user.token,
          payload: { appId: s.appId, envs: ['nope'] },
        }),
        404,
        'not_found',
      );
      for (const bad of [
        { ...ok, staleAfterDays: 0 },
        { ...ok, now: 'yesterday' },
        { ...ok, extra: 1 },
        { ...ok, codeReferences: [{ path: 'x' }] },
      ]) {
        expectError(
          await call(app, 'POST', '/api/v1/cleanup', { token: s.user.token, payload: bad }),
          400,
          'validation_error',
        );
      }
      const big = {
        appId: s.appId,
        codeReferences: Array.from({ length: 3000 }, (_, i) => ({
          flagKey: `flag-${i}`,
          path: `src/${'x'.repeat(80)}/${i}.ts`,
        })),
      };
      expectError(
        await call(app, 'POST', '/api/v1/cleanup', { token: s.user.token, payload: big }),
        413,
        'payload_too_large',
      );
    });
  });
}

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { bearer, expectError } from '../../../../test/helpers/fixtures.js';
import { nextMonthStartOf } from '../metering/index.js';
import { advancedClient } from './advanced.test-client.js';

const quotas = (configSyncs: number) => ({
  free: { configSyncs, apps: 10, flags: 500 },
  pro: { configSyncs: 1_000_000, apps: 10, flags: 500 },
});

for (const dialect of dialects) {
  describe(`advanced-config sync metering on ${dialect}`, () => {
    test("environment keys share the legacy routes' monthly quota; over it 429 with Retry-After; management reads still pass", async (t) => {
      const { app } = await buildTestApp(t, { dialect, config: { quotas: quotas(4) } });
      const c = await advancedClient(app);
      const first = await c.get(c.fx.sdk);
      assert.equal(first.headers['x-sync-quota-remaining'], '3');
      assert.equal((await c.get(c.fx.pub)).headers['x-sync-quota-remaining'], '2');
      // One meter per process: the legacy routes count against the same environment quota.
      const legacy = await app.inject({ method: 'GET', url: '/api/v1/config', headers: bearer(c.fx.sdk) });
      assert.equal(legacy.headers['x-sync-quota-remaining'], '1');
      assert.equal(
        (await c.get(c.fx.sdk, { headers: { 'if-none-match': String(first.headers.etag) } })).statusCode,
        304,
      );

      for (const [token, headers] of [
        [c.fx.sdk, {}],
        [c.fx.pub, {}],
        [c.fx.sdk, { 'if-none-match': String(first.headers.etag) }],
      ] as const) {
        const over = await c.get(token, { headers });
        const error = expectError(over, 429, 'monthly_config_sync_quota_exceeded');
        assert.match(error.message, /4 configuration syncs/);
        const expected = Math.ceil((nextMonthStartOf(Date.now()) - Date.now()) / 1000);
        assert.ok(
          Math.abs(Number(over.headers['retry-after']) - expected) <= 2,
          `Retry-After ${over.headers['retry-after']}`,
        );
        assert.equal(over.headers['x-sync-quota-remaining'], '0');
      }
      const managed = await c.manage();
      assert.equal(managed.statusCode, 200, 'management reads are not syncs, so the quota does not apply');
      assert.equal(managed.headers['x-sync-quota-remaining'], undefined);
    });

    test('metering that cannot read or write its counts fails closed with 503 and Retry-After: 1', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      // The environment's first sync reads its count: without the table that read fails.
      await database.handle.db.schema.alterTable('config_sync_counts').renameTo('config_sync_counts_away').execute();
      for (const token of [c.fx.sdk, c.fx.pub]) {
        const res = await c.get(token);
        expectError(res, 503, 'config_sync_metering_unavailable');
        assert.equal(res.headers['retry-after'], '1');
      }
      assert.equal((await c.manage()).statusCode, 200, 'management reads are not metered');
      await database.handle.db.schema.alterTable('config_sync_counts_away').renameTo('config_sync_counts').execute();
      assert.equal((await c.get(c.fx.sdk)).statusCode, 200);
    });
  });
}

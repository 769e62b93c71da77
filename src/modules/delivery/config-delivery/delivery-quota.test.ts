import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../../app.js';
import { up as createSyncCounts } from '../../../db/migrations/0003-sync-metering.js';
import { buildTestApp, dialects, testConfig } from '../../../../test/helpers/test-app.js';
import { bearer } from '../../../../test/helpers/fixtures.js';
import { environmentFixture, getConfig } from '../../../../test/helpers/delivery-fixtures.js';
import { monthKeyOf, nextMonthStartOf } from '../metering/index.js';

const quotas = (configSyncs: number) => ({
  free: { configSyncs, apps: 10, flags: 500 },
  pro: { configSyncs: 1_000_000, apps: 10, flags: 500 },
});

for (const dialect of dialects) {
  describe(`config sync quota on ${dialect}`, () => {
    test('200 and 304 both count; over the quota 429 with Retry-After to the next month; management reads never count', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect, config: { quotas: quotas(4) } });
      const fx = await environmentFixture(app);

      const first = await getConfig(app, fx.sdk);
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['x-sync-quota-limit'], '4');
      assert.equal(first.headers['x-sync-quota-remaining'], '3');

      // Management reads with cli_ and admin_ credentials are not syncs.
      for (const token of [fx.user.token, fx.admin]) {
        assert.equal(
          (await app.inject({ method: 'GET', url: `/api/v1/keys?appId=${fx.target.appId}`, headers: bearer(token) }))
            .statusCode,
          200,
        );
        assert.equal(
          (await app.inject({ method: 'GET', url: `/api/v1/changes?appId=${fx.target.appId}`, headers: bearer(token) }))
            .statusCode,
          200,
        );
      }
      const notModified = await getConfig(app, fx.sdk, { 'if-none-match': String(first.headers.etag) });
      assert.equal(notModified.statusCode, 304);
      assert.equal(notModified.headers['x-sync-quota-remaining'], '2');
      // The public route shares the environment's quota.
      const pub = await getConfig(app, fx.pub, {}, '/api/v1/public-config');
      assert.equal(pub.headers['x-sync-quota-remaining'], '1');
      assert.equal((await getConfig(app, fx.sdk)).headers['x-sync-quota-remaining'], '0');

      const retries: Record<string, string>[] = [{}, { 'if-none-match': String(first.headers.etag) }];
      for (const headers of retries) {
        const over = await getConfig(app, fx.sdk, headers);
        assert.equal(over.statusCode, 429);
        assert.deepEqual(Object.keys(over.json()).sort(), ['code', 'error', 'message', 'resolution']);
        assert.equal(over.json().error, 'Too Many Requests');
        assert.equal(over.json().code, 'MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED');
        const expected = Math.ceil((nextMonthStartOf(Date.now()) - Date.now()) / 1000);
        assert.ok(
          Math.abs(Number(over.headers['retry-after']) - expected) <= 2,
          `Retry-After ${over.headers['retry-after']}, expected about ${expected}`,
        );
        assert.equal(over.headers['x-sync-quota-remaining'], '0');
      }

      // Refused syncs are not counted; the four served ones reach the database.
      await app.configSyncs.flush();
      const row = await database.handle.db
        .selectFrom('config_sync_counts')
        .selectAll()
        .where('env_id', '=', fx.target.envId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.count), 4);
      assert.equal(row.month, monthKeyOf(Date.now()));
      assert.equal(row.app_id, fx.target.appId);
    });

    test('another process on the same database continues from the stored count', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect, config: { quotas: quotas(5) } });
      const fx = await environmentFixture(app);
      for (let i = 0; i < 3; i++) assert.equal((await getConfig(app, fx.sdk)).statusCode, 200);
      await app.configSyncs.flush();

      const handle = database.open();
      const second = await buildApp({
        db: handle.db,
        dbHandle: handle,
        notifyChannel: database.pgSchema,
        config: testConfig({ quotas: quotas(5) }),
      });
      t.after(async () => {
        await second.close();
        await handle.close();
      });
      const res = await getConfig(second, fx.sdk);
      assert.equal(res.headers['x-sync-quota-remaining'], '1');
      await second.configSyncs.flush();
      // Each process learns the merged total when it writes its own counts: the first one still
      // believes 3 were used, serves one more, and then knows all five are gone.
      assert.equal((await getConfig(app, fx.sdk)).statusCode, 200);
      await app.configSyncs.flush();
      assert.equal((await getConfig(app, fx.sdk)).statusCode, 429);
      const row = await database.handle.db
        .selectFrom('config_sync_counts')
        .select('count')
        .where('env_id', '=', fx.target.envId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.count), 5);
    });

    test('when counts cannot be written, syncs fail closed with 503 until writing works again', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect });
      const fx = await environmentFixture(app);
      const db = database.handle.db;
      assert.equal((await getConfig(app, fx.sdk)).statusCode, 200);
      await app.configSyncs.flush();

      await db.schema.dropTable('config_sync_counts').execute();
      assert.equal((await getConfig(app, fx.sdk)).statusCode, 200, 'counted in memory; the write comes later');
      await app.configSyncs.flush();
      for (const url of ['/api/v1/config', '/api/v1/public-config']) {
        const res = await getConfig(app, url === '/api/v1/config' ? fx.sdk : fx.pub, {}, url);
        assert.equal(res.statusCode, 503);
        assert.equal(res.headers['retry-after'], '1');
        assert.deepEqual(res.json().error, 'Service Unavailable');
        assert.equal(res.json().code, 'CONFIG_SYNC_METERING_UNAVAILABLE');
      }

      await createSyncCounts(db);
      await app.configSyncs.flush();
      const back = await getConfig(app, fx.sdk);
      assert.equal(back.statusCode, 200);
      await app.configSyncs.flush();
      // The sync counted while the table was gone was kept and written after recovery.
      const row = await db
        .selectFrom('config_sync_counts')
        .select('count')
        .where('env_id', '=', fx.target.envId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.count), 2);
    });

    test('counts pending at shutdown are written on close', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect });
      const fx = await environmentFixture(app);
      // A process of its own, closed right after its syncs: no timer has written them yet.
      const handle = database.open();
      const other = await buildApp({
        db: handle.db,
        dbHandle: handle,
        notifyChannel: database.pgSchema,
        config: testConfig(),
      });
      for (let i = 0; i < 3; i++) assert.equal((await getConfig(other, fx.sdk)).statusCode, 200);
      await other.close();
      await handle.close();
      const row = await database.handle.db
        .selectFrom('config_sync_counts')
        .select('count')
        .where('env_id', '=', fx.target.envId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.count), 3);
    });
  });
}

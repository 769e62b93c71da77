import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../platform/errors.js';
import { dialects, testDatabase } from '../../../../test/helpers/test-app.js';
import { createSyncMeter, monthKeyOf, nextMonthStartOf } from './sync-meter.js';
import { testClock } from '../../../../test/helpers/clock.js';

const subject = { envId: 'env_meter', appId: 'app_meter' };

function rejection(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err;
  }
  assert.fail('expected the sync to be refused');
}

describe('calendar months (UTC)', () => {
  test('month keys and the next month boundary', () => {
    assert.equal(monthKeyOf(Date.parse('2026-12-31T23:59:59.999Z')), '2026-12');
    assert.equal(
      new Date(nextMonthStartOf(Date.parse('2026-12-31T23:59:59.999Z'))).toISOString(),
      '2027-01-01T00:00:00.000Z',
    );
    assert.equal(
      new Date(nextMonthStartOf(Date.parse('2026-02-01T00:00:00.000Z'))).toISOString(),
      '2026-03-01T00:00:00.000Z',
    );
  });
});

for (const dialect of dialects) {
  describe(`sync meter on ${dialect}`, () => {
    test('syncs counted while a batch is being written still count against the quota', async (t) => {
      const database = await testDatabase(t, dialect);
      const meter = createSyncMeter({ db: database.handle.db, quotaOf: async () => 3, flushIntervalMs: 60_000 });
      t.after(() => meter.close());
      await meter.admit(subject);
      void meter.admit(subject);
      const writing = meter.flush();
      assert.deepEqual(meter.admit(subject), { limit: 3, remaining: 0 }, 'the batch in flight is part of the total');
      assert.equal(rejection(() => meter.admit(subject)).statusCode, 429);
      await writing;
      assert.equal(rejection(() => meter.admit(subject)).statusCode, 429, 'and stays counted once written');
      await meter.flush();
      const row = await database.handle.db
        .selectFrom('config_sync_counts')
        .select('count')
        .where('env_id', '=', subject.envId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.count), 3);
    });

    test('counts into the month it happened in; a new month starts from zero; Retry-After points at the boundary', async (t) => {
      const database = await testDatabase(t, dialect);
      const clock = testClock(Date.parse('2026-11-30T23:59:58.000Z'));
      const meter = createSyncMeter({
        db: database.handle.db,
        quotaOf: async () => 2,
        now: clock.now,
        flushIntervalMs: 60_000,
      });
      t.after(() => meter.close());

      assert.deepEqual(await meter.admit(subject), { limit: 2, remaining: 1 });
      assert.deepEqual(meter.admit(subject), { limit: 2, remaining: 0 });
      const over = rejection(() => meter.admit(subject));
      assert.equal(over.statusCode, 429);
      assert.equal(over.legacyCode, 'MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED');
      assert.equal(over.headers?.['retry-after'], '2');

      clock.set(Date.parse('2026-12-01T00:00:00.500Z'));
      assert.deepEqual(meter.admit(subject), { limit: 2, remaining: 1 }, 'a new month');
      await meter.flush();
      const rows = await database.handle.db
        .selectFrom('config_sync_counts')
        .select(['month', 'count'])
        .where('env_id', '=', subject.envId)
        .orderBy('month')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.month, Number(r.count)]),
        [
          ['2026-11', 2],
          ['2026-12', 1],
        ],
      );
    });

    test('a failed write refuses syncs (503) and keeps the counts until a write succeeds', async (t) => {
      const database = await testDatabase(t, dialect);
      const errors: unknown[] = [];
      const meter = createSyncMeter({
        db: database.handle.db,
        quotaOf: async () => 100,
        flushIntervalMs: 60_000,
        onFlushError: (err) => errors.push(err),
      });
      t.after(() => meter.close());
      await meter.admit(subject);
      await database.handle.db.schema.alterTable('config_sync_counts').renameTo('config_sync_counts_away').execute();
      void meter.admit(subject);
      await meter.flush();
      assert.equal(errors.length, 1);
      const refused = rejection(() => meter.admit(subject));
      assert.equal(refused.statusCode, 503);
      assert.equal(refused.legacyCode, 'CONFIG_SYNC_METERING_UNAVAILABLE');
      assert.equal(refused.headers?.['retry-after'], '1');

      await database.handle.db.schema.alterTable('config_sync_counts_away').renameTo('config_sync_counts').execute();
      await meter.flush();
      assert.deepEqual(meter.admit(subject), { limit: 100, remaining: 97 });
      await meter.flush();
      const row = await database.handle.db
        .selectFrom('config_sync_counts')
        .select('count')
        .where('env_id', '=', subject.envId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.count), 3);
    });
  });
}

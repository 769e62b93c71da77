import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { exposure, sendBatch, T0, telemetryApp } from './telemetry.fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

const DAY = 86_400_000;

for (const dialect of dialects) {
  describe(`telemetry retention job on ${dialect}`, () => {
    test('the recurring leased job purges raw events past 30 days', async (t) => {
      const clock = testClock();
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await telemetryApp(app);
      assert.equal((await sendBatch(app, s.sdkProd, [exposure(T0, 'user-1')])).json().accepted, 1);
      const count = async () =>
        Number(
          (
            await database.handle.db
              .selectFrom('telemetry_events')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      await app.jobs.ensureSchedules();
      await app.jobs.runDue();
      assert.equal(await count(), 1, 'a young event stays');
      clock.advance(31 * DAY + 2 * 3_600_000);
      await app.jobs.ensureSchedules();
      await app.jobs.drain();
      assert.equal(await count(), 0, 'the purge ran as a job once the next occurrence was due');
    });
  });
}

// The credential cache: resolved keys for a second, and tokens no key has, apart, briefly and bounded,
// so a flood of made-up keys costs no database read and cannot push real keys out.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CredentialResolution } from '../../../platform/principal.js';
import { dialects, testDatabase } from '../../../../test/helpers/test-app.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { createJournalService } from '../journal/index.js';
import { createCredentialCache } from './credential-cache.js';
import { createKeysService } from './keys.service.js';
import { environmentSlugsOf } from '../apps/index.js';
import { testClock } from '../../../../test/helpers/clock.js';

const known: CredentialResolution = {
  ok: true,
  principal: { type: 'sdk', appId: 'app_1', envId: 'env_1', env: 'prod', keyId: 'key_1', fingerprint: 'f' },
};

describe('credential cache', () => {
  test('an unknown token is answered from memory until its short lifetime ends', () => {
    const clock = testClock(0);
    const cache = createCredentialCache({ unknownTtlMs: 5000, now: clock.now });
    assert.equal(cache.get('sdk_made_up'), undefined);
    cache.setUnknown('sdk_made_up');
    assert.deepEqual(cache.get('sdk_made_up'), { ok: false, reason: 'invalid' });
    clock.set(4999);
    assert.deepEqual(cache.get('sdk_made_up'), { ok: false, reason: 'invalid' });
    clock.set(5000);
    assert.equal(cache.get('sdk_made_up'), undefined, 'asked of the database again after the lifetime');
  });

  test('unknown tokens are bounded apart from known keys, which a flood of them cannot evict', () => {
    const cache = createCredentialCache({ maxUnknown: 100, maxEntries: 10 });
    cache.set('sdk_real', 'key_1', known);
    for (let i = 0; i < 1000; i++) cache.setUnknown(`sdk_bogus_${i}`);
    assert.equal(cache.get('sdk_real'), known.ok ? known : undefined);
    assert.equal(cache.get('sdk_bogus_0'), undefined, 'the oldest unknown tokens are forgotten first');
    assert.deepEqual(cache.get('sdk_bogus_999'), { ok: false, reason: 'invalid' });
  });
});

for (const dialect of dialects) {
  describe(`key resolution (${dialect})`, () => {
    test('a made-up key is read once: later and concurrent asks cost no database read', async (t) => {
      const database = await testDatabase(t, dialect);
      let reads = 0;
      const counting = database.handle.db.withPlugin({
        transformQuery: (args) => {
          reads++;
          return args.node;
        },
        transformResult: async (args) => args.result,
      });
      const clock = testClock(1_000_000);
      // Resolution needs neither the journal nor app access.
      const keys = createKeysService(counting, createJournalService(counting), {} as AppAccess, {
        now: clock.now,
        environmentSlugs: environmentSlugsOf,
      });
      const token = `sdk_${'x'.repeat(43)}`;
      const first = await Promise.all(Array.from({ length: 20 }, async () => keys.resolve(token, 'sdk')));
      assert.equal(reads, 1, 'twenty concurrent asks, one read');
      assert.ok(first.every((r) => !r.ok && r.reason === 'invalid'));
      for (let i = 0; i < 1000; i++) {
        const again = keys.resolve(token, 'sdk');
        assert.ok(!(again instanceof Promise), 'answered from memory');
        assert.deepEqual(again, { ok: false, reason: 'invalid' });
      }
      assert.equal(reads, 1);
      clock.advance(5000);
      const later = keys.resolve(token, 'sdk');
      assert.ok(later instanceof Promise, 'read again once forgotten');
      // Awaited before the database closes: a read left running would outlive the test.
      assert.deepEqual(await later, { ok: false, reason: 'invalid' });
      assert.equal(reads, 2);
    });
  });
}

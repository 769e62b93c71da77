// Processes sharing a database must share the server secret: the first start records its
// fingerprint, a process with another secret refuses to start and says to set ENSIGN_SECRET.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { dialects, testConfig, testDatabase } from '../../test/helpers/test-app.js';
import { startServer } from '../main.js';
import { checkSecretFingerprint, fingerprintOf, SecretMismatchError } from './secret-fingerprint.js';

for (const dialect of dialects) {
  describe(`the secret fingerprint on ${dialect}`, () => {
    test('recorded on first start, accepted again, refused for another secret', async (t) => {
      const database = await testDatabase(t, dialect);
      const db = database.handle.db;
      await checkSecretFingerprint(db, 'first-secret-first-secret-first-secret');
      await checkSecretFingerprint(db, 'first-secret-first-secret-first-secret');
      await assert.rejects(
        checkSecretFingerprint(db, 'other-secret-other-secret-other-secret'),
        (err: Error) =>
          err instanceof SecretMismatchError &&
          /Set ENSIGN_SECRET to the same value on every process/.test(err.message),
      );
      const stored = await db.selectFrom('server_secret_fingerprint').selectAll().execute();
      assert.deepEqual(
        stored.map((r) => r.fingerprint),
        [fingerprintOf('first-secret-first-secret-first-secret')],
      );
      assert.ok(!stored[0]!.fingerprint.includes('first-secret'), 'the fingerprint is not the secret');
    });
  });
}

test('a server whose secret does not match the database refuses to start', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ensign-secret-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const base = { dataDir: dir, databaseUrl: `sqlite://${join(dir, 'ensign.db')}`, port: 0 };
  const first = await startServer(testConfig({ ...base, secret: 'one-secret-one-secret-one-secret-0001' }));
  await first.app.close();
  await first.handle.close();
  await assert.rejects(
    startServer(testConfig({ ...base, secret: 'two-secret-two-secret-two-secret-0002' })),
    /ENSIGN_SECRET/,
  );
  const again = await startServer(testConfig({ ...base, secret: 'one-secret-one-secret-one-secret-0001' }));
  await again.app.close();
  await again.handle.close();
});

// Every process sharing a database must hold the same server secret: what one seals with it (export
// signing secrets, idempotent replays, erasure keys) the others must open. A process that generated
// its own secret in its data directory would otherwise start fine and fail later, quietly (issue 19:
// events never exported, deliveries stuck). The first process to start records a fingerprint of its
// secret in the database; a later one whose secret does not match refuses to start.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { deriveKey } from './secret-box.js';
import { ownTables } from '../db/owned-tables.js';
import type { SecretFingerprintTables } from './secret-fingerprint.table.js';

const own = ownTables<SecretFingerprintTables>();

export class SecretMismatchError extends Error {
  override name = 'SecretMismatchError';
}

export function fingerprintOf(secret: string): string {
  return deriveKey(secret, 'secret-fingerprint').toString('hex');
}

/** Records this secret's fingerprint if none is, else checks it; throws SecretMismatchError on a mismatch. */
export async function checkSecretFingerprint(
  db: Kysely<Database>,
  secret: string,
  now: () => number = Date.now,
): Promise<void> {
  const fingerprint = fingerprintOf(secret);
  await own(db)
    .insertInto('server_secret_fingerprint')
    .values({ id: 1, fingerprint, created_at: new Date(now()).toISOString() })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const stored = await own(db)
    .selectFrom('server_secret_fingerprint')
    .select('fingerprint')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  if (stored.fingerprint === fingerprint) return;
  throw new SecretMismatchError(
    "This process's server secret does not match the one this database was first used with, so it could not open what other processes sealed " +
      '(export signing secrets, idempotent replays). Set ENSIGN_SECRET to the same value on every process that shares this database ' +
      '(a process without it uses the secret generated in its own data directory), then start it again.',
  );
}

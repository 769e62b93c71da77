import { sql } from 'kysely';
import type { Executor } from '../../../db/transaction.js';
import type { CliTokensTable, UsersTable, AuthTables } from './auth.table.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<AuthTables>();

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string;
  plan: string;
  createdAt: string;
}

const toUser = (r: UsersTable): UserRecord => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  plan: r.plan,
  createdAt: r.created_at,
});

export async function findUserByEmail(db: Executor, email: string): Promise<UserRecord | undefined> {
  const row = await own(db).selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  return row && toUser(row);
}

export async function findUserById(db: Executor, id: string): Promise<UserRecord | undefined> {
  const row = await own(db).selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

export async function insertUser(db: Executor, row: UsersTable): Promise<void> {
  await own(db).insertInto('users').values(row).execute();
}

export async function updateUserPlan(db: Executor, email: string, plan: string): Promise<boolean> {
  const r = await own(db).updateTable('users').set({ plan }).where('email', '=', email).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Replaces a user's password hash if it is still `current`. */
export async function replacePasswordHash(db: Executor, userId: string, current: string, next: string): Promise<void> {
  await own(db)
    .updateTable('users')
    .set({ password_hash: next })
    .where('id', '=', userId)
    .where('password_hash', '=', current)
    .execute();
}

export async function insertCliToken(db: Executor, row: CliTokensTable): Promise<void> {
  await own(db).insertInto('cli_tokens').values(row).execute();
}

export async function findCliTokenByHash(db: Executor, hash: string) {
  return own(db).selectFrom('cli_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
}

export async function revokeCliToken(db: Executor, id: string, at: string): Promise<void> {
  await own(db)
    .updateTable('cli_tokens')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Counts one failure per key in one atomic upsert: a key whose window has ended starts again at 1
 * with a new window, so concurrent processes never lose each other's counts.
 */
export async function addLoginFailures(db: Executor, keys: string[], now: number, windowMs: number): Promise<void> {
  await own(db)
    .insertInto('login_failures')
    .values(keys.map((key) => ({ key, failures: 1, reset_at: now + windowMs })))
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql<number>`case when login_failures.reset_at <= ${now} then 1 else login_failures.failures + 1 end`,
        reset_at: sql<number>`case when login_failures.reset_at <= ${now} then excluded.reset_at else login_failures.reset_at end`,
      }),
    )
    .execute();
}

/** The open windows of these keys. */
export async function readLoginFailures(
  db: Executor,
  keys: string[],
  now: number,
): Promise<{ key: string; failures: number; resetAt: number }[]> {
  const rows = await own(db)
    .selectFrom('login_failures')
    .select(['key', 'failures', 'reset_at'])
    .where('key', 'in', keys)
    .where('reset_at', '>', now)
    .execute();
  return rows.map((r) => ({ key: r.key, failures: Number(r.failures), resetAt: Number(r.reset_at) }));
}

export async function clearLoginFailures(db: Executor, key: string): Promise<void> {
  await own(db).deleteFrom('login_failures').where('key', '=', key).execute();
}

export async function deleteEndedLoginFailures(db: Executor, now: number): Promise<void> {
  await own(db).deleteFrom('login_failures').where('reset_at', '<=', now).execute();
}

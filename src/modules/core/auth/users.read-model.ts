// What other modules may read of users (apps: members' addresses, invitations, the owner's lock):
// lookups by id or address, instead of each joining the users table.
import { ownTables } from '../../../db/owned-tables.js';
import { forUpdate } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';
import type { AuthTables } from './auth.table.js';

const own = ownTables<AuthTables>();

/** The user's address (stored lower-cased); undefined when there is no such user. */
export async function emailOfUser(executor: Executor, userId: string): Promise<string | undefined> {
  return (await own(executor).selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst())?.email;
}

/** The addresses of the users among `userIds` that exist, by id. */
export async function emailsOfUsers(executor: Executor, userIds: readonly string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await own(executor)
    .selectFrom('users')
    .select(['id', 'email'])
    .where('id', 'in', [...new Set(userIds)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** The id of the user with this address (lower-cased), if any. */
export async function userIdOfEmail(executor: Executor, email: string): Promise<string | undefined> {
  return (await own(executor).selectFrom('users').select('id').where('email', '=', email).executeTakeFirst())?.id;
}

/**
 * Locks the user's row until the transaction of `executor` ends (PostgreSQL; SQLite has one writer):
 * what a user owns is counted and grown under it (apps per owner and plan).
 */
export async function lockUser(executor: Executor, userId: string): Promise<void> {
  const db = own(executor);
  await forUpdate(executor, db.selectFrom('users').select('id').where('id', '=', userId)).execute();
}

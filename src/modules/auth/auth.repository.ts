import type { Executor } from '../../db/transaction.js';
import type { CliTokensTable, UsersTable } from './auth.table.js';

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string;
  plan: string;
  createdAt: string;
}

const toUser = (r: UsersTable): UserRecord => ({ id: r.id, email: r.email, passwordHash: r.password_hash, plan: r.plan, createdAt: r.created_at });

export async function findUserByEmail(db: Executor, email: string): Promise<UserRecord | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  return row && toUser(row);
}

export async function findUserById(db: Executor, id: string): Promise<UserRecord | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

export async function insertUser(db: Executor, row: UsersTable): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updateUserPlan(db: Executor, email: string, plan: string): Promise<boolean> {
  const r = await db.updateTable('users').set({ plan }).where('email', '=', email).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function insertCliToken(db: Executor, row: CliTokensTable): Promise<void> {
  await db.insertInto('cli_tokens').values(row).execute();
}

export async function findCliTokenByHash(db: Executor, hash: string) {
  return db.selectFrom('cli_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
}

export async function revokeCliToken(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('cli_tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

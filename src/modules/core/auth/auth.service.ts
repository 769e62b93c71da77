import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { Executor } from '../../../db/transaction.js';
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { PLANS, type Plan } from '../../../config.js';
import { AppError } from '../../../platform/errors.js';
import { newId, nowIso } from '../../../platform/ids.js';
import { issueToken } from '../../../platform/tokens.js';
import type { UserPrincipal } from '../../../platform/principal.js';
import { passwordHasher } from './passwords.js';
import { LoginThrottle } from './login-throttle.js';
import * as repo from './auth.repository.js';

const CLI_TOKEN_LIFETIME_MS = 90 * 24 * 60 * 60 * 1000;

export interface LoginInput {
  flow: 'signUp' | 'signIn';
  email: string;
  password: string;
}

export interface LoginResult {
  apiVersion: 1;
  token: string;
  expiresAt: string;
  user: { id: string; email: string };
}

export interface AuthService {
  login(input: LoginInput, clientAddress: string): Promise<LoginResult>;
  logout(principal: UserPrincipal): Promise<void>;
  setPlan(email: string, plan: string): Promise<void>;
  planOf(userId: string, executor?: Executor): Promise<Plan>;
  /** A scoped cli_ token of a user (authority workflow): shown once, stored as its hash. */
  issueScopedToken(
    userId: string,
    scope: ScopedTokenScope,
    createdAt: string,
    expiresAt: string,
  ): Promise<{ id: string; token: string }>;
}

export interface ScopedTokenScope {
  capabilities: string[];
  appIds: string[];
  envs: string[] | null;
  name: string | null;
}

const invalidCredentials = () =>
  new AppError(401, 'invalid_credentials', 'The e-mail or password is not correct.', {
    resolution: 'Check the e-mail and password, or sign up with flow "signUp".',
  });

export interface AuthSettings {
  defaultPlan: Plan;
  /** log2 of scrypt's N for new password hashes (ENSIGN_PASSWORD_SCRYPT_COST). */
  passwordScryptCost: number;
}

export function createAuthService(
  db: Kysely<Database>,
  { defaultPlan, passwordScryptCost }: AuthSettings,
  now: () => number = Date.now,
): AuthService {
  const throttle = new LoginThrottle(db, now);
  const passwords = passwordHasher(passwordScryptCost);
  async function issueLoginToken(user: { id: string; email: string }): Promise<LoginResult> {
    const issued = issueToken('cli');
    const createdAt = nowIso();
    const expiresAt = new Date(Date.parse(createdAt) + CLI_TOKEN_LIFETIME_MS).toISOString();
    await repo.insertCliToken(db, {
      id: newId('tok'),
      user_id: user.id,
      token_hash: issued.hash,
      prefix: issued.prefix,
      scope: null,
      created_at: createdAt,
      expires_at: expiresAt,
      revoked_at: null,
    });
    return { apiVersion: 1, token: issued.token, expiresAt, user: { id: user.id, email: user.email } };
  }

  async function signIn(email: string, password: string, address: string): Promise<LoginResult> {
    const user = await repo.findUserByEmail(db, email);
    const ok = await passwords.verify(password, user?.passwordHash ?? passwords.decoy);
    if (!user || !ok) {
      await throttle.recordFailure(email, address);
      throw invalidCredentials();
    }
    await throttle.recordSuccess(email);
    // A hash made at another cost than the configured one is replaced now that the password is known
    // (only if it is still the one verified: a concurrent sign-in may have replaced it already).
    if (passwords.needsRehash(user.passwordHash))
      await repo.replacePasswordHash(db, user.id, user.passwordHash, await passwords.hash(password));
    return issueLoginToken(user);
  }

  return {
    async login(input, address) {
      const email = input.email.trim().toLowerCase();
      const wait = await throttle.retryAfter(email, address);
      if (wait > 0) {
        throw new AppError(429, 'rate_limited', 'Too many failed logins; wait before trying again.', {
          headers: { 'retry-after': String(wait) },
        });
      }
      if (input.flow === 'signIn') return signIn(email, input.password, address);
      // signUp of an existing e-mail answers exactly as signIn would, so e-mails cannot be enumerated.
      if (await repo.findUserByEmail(db, email)) return signIn(email, input.password, address);
      const user = { id: newId('usr'), email };
      try {
        await repo.insertUser(db, {
          id: user.id,
          email,
          password_hash: await passwords.hash(input.password),
          plan: defaultPlan,
          created_at: nowIso(),
        });
      } catch (err) {
        if (isUniqueViolation(err)) return signIn(email, input.password, address);
        throw err;
      }
      return issueLoginToken(user);
    },
    async logout(principal) {
      await repo.revokeCliToken(db, principal.tokenId, nowIso());
    },
    async setPlan(email, plan) {
      if (!(PLANS as readonly string[]).includes(plan))
        throw new AppError(400, 'validation_error', `Plan must be one of: ${PLANS.join(', ')}.`);
      if (!(await repo.updateUserPlan(db, email.trim().toLowerCase(), plan)))
        throw new AppError(404, 'not_found', `No user with e-mail ${email}.`);
    },
    async issueScopedToken(userId, scope, createdAt, expiresAt) {
      const issued = issueToken('cli');
      const id = newId('tok');
      await repo.insertCliToken(db, {
        id,
        user_id: userId,
        token_hash: issued.hash,
        prefix: issued.prefix,
        scope: JSON.stringify(scope),
        created_at: createdAt,
        expires_at: expiresAt,
        revoked_at: null,
      });
      return { id, token: issued.token };
    },
    async planOf(userId, executor = db) {
      const user = await repo.findUserById(executor, userId);
      return (user?.plan as Plan | undefined) ?? defaultPlan;
    },
  };
}

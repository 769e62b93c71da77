// Who is calling: the four credential types of the seed, resolved once per request.
import type { TokenType } from './tokens.js';

export interface UserPrincipal {
  type: 'cli';
  userId: string;
  tokenId: string;
  /** Scoped capability tokens (authority workflow) cannot list or create apps. */
  scoped: boolean;
  capabilities: string[] | null;
  /** Scoped tokens reach only these apps (null: every app of the user). */
  appIds: string[] | null;
  /** Scoped tokens reach only these environment slugs (null: every environment). */
  envs: string[] | null;
  fingerprint: string;
}

export interface AdminPrincipal {
  type: 'admin';
  appId: string;
  keyId: string;
  fingerprint: string;
}

export interface EnvironmentPrincipal {
  type: 'sdk' | 'pub';
  appId: string;
  envId: string;
  env: string;
  keyId: string;
  fingerprint: string;
}

export type Principal = UserPrincipal | AdminPrincipal | EnvironmentPrincipal;
export type ManagementPrincipal = UserPrincipal | AdminPrincipal;

/** The principal a credential of type T resolves to (the resolver answers with the token's type). */
export type PrincipalOf<T extends TokenType> = T extends 'cli'
  ? UserPrincipal
  : T extends 'admin'
    ? AdminPrincipal
    : EnvironmentPrincipal & { type: T };

export type CredentialResolution =
  { ok: true; principal: Principal } | { ok: false; reason: 'invalid' | 'revoked' | 'expired' };

export interface CredentialResolver {
  /** A value when the answer is in memory (no promise on the hot path), a promise otherwise. */
  resolve(token: string, type: TokenType): CredentialResolution | Promise<CredentialResolution>;
}

/** Stable scope for idempotency records and rate limits: the user, or the key. */
export function principalScope(p: Principal): string {
  return p.type === 'cli' ? `user:${p.userId}` : `key:${p.keyId}`;
}

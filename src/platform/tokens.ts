// Bearer tokens: `<type>_` + 32 random bytes base64url. Only the SHA-256 is stored; the prefix shown in
// lists is the first 12 characters; the journal's keyFingerprint is the first 16 hex digits of the hash.
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_TYPES = ['cli', 'admin', 'sdk', 'pub'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

export interface IssuedToken {
  token: string;
  hash: string;
  prefix: string;
  fingerprint: string;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function fingerprintOfHash(hash: string): string {
  return hash.slice(0, 16);
}

export function issueToken(type: TokenType): IssuedToken {
  const token = `${type}_${randomBytes(32).toString('base64url')}`;
  const hash = hashToken(token);
  return { token, hash, prefix: token.slice(0, 12), fingerprint: fingerprintOfHash(hash) };
}

/** The token type a bearer string claims by its prefix, or null for anything else. */
export function tokenTypeOf(token: string): TokenType | null {
  const underscore = token.indexOf('_');
  if (underscore < 0) return null;
  const type = token.slice(0, underscore);
  return (TOKEN_TYPES as readonly string[]).includes(type) ? (type as TokenType) : null;
}

// Resolves every bearer type to its principal: login tokens here, keys through the keys module.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { CredentialResolution, CredentialResolver } from '../../platform/principal.js';
import { fingerprintOfHash, hashToken } from '../../platform/tokens.js';
import type { KeysService } from '../keys/index.js';
import { findCliTokenByHash } from './auth.repository.js';

export function createCredentialResolver(db: Kysely<Database>, keys: KeysService): CredentialResolver {
  return {
    resolve(token, type) {
      // Environment and admin keys may be answered from memory, without a promise.
      return type === 'cli' ? resolveLoginToken(token) : keys.resolve(token, type);
    },
  };

  async function resolveLoginToken(token: string): Promise<CredentialResolution> {
    const hash = hashToken(token);
    const row = await findCliTokenByHash(db, hash);
    if (!row) return { ok: false, reason: 'invalid' };
    if (row.revoked_at) return { ok: false, reason: 'revoked' };
    if (Date.parse(row.expires_at) <= Date.now()) return { ok: false, reason: 'expired' };
    const capabilities = row.scope ? (JSON.parse(row.scope) as string[]) : null;
    return {
      ok: true,
      principal: { type: 'cli', userId: row.user_id, tokenId: row.id, scoped: capabilities !== null, capabilities, fingerprint: fingerprintOfHash(hash) },
    };
  }
}

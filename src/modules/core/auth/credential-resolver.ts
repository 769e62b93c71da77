// Resolves every bearer type to its principal: login tokens here, keys through the keys module.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import type { CredentialResolution, CredentialResolver } from '../../../platform/principal.js';
import { fingerprintOfHash, hashToken } from '../../../platform/tokens.js';
import type { KeysService } from '../keys/index.js';
import { findCliTokenByHash } from './auth.repository.js';

export function createCredentialResolver(
  db: Kysely<Database>,
  keys: KeysService,
  now: () => number = Date.now,
): CredentialResolver {
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
    if (Date.parse(row.expires_at) <= now()) return { ok: false, reason: 'expired' };
    const scope = scopeOf(row.scope);
    return {
      ok: true,
      principal: {
        type: 'cli',
        userId: row.user_id,
        tokenId: row.id,
        scoped: scope !== null,
        capabilities: scope?.capabilities ?? null,
        appIds: scope?.appIds ?? null,
        envs: scope?.envs ?? null,
        fingerprint: fingerprintOfHash(hash),
      },
    };
  }
}

/**
 * The stored scope of a cli_ token: null for a login token; a capability list (the first form) or
 * `{ capabilities, appIds, envs }` for a scoped token minted by POST /api/v1/authority/tokens.
 */
function scopeOf(
  text: string | null,
): { capabilities: string[]; appIds: string[] | null; envs: string[] | null } | null {
  if (!text) return null;
  const parsed = JSON.parse(text) as
    string[] | { capabilities: string[]; appIds?: string[] | null; envs?: string[] | null };
  if (Array.isArray(parsed)) return { capabilities: parsed, appIds: null, envs: null };
  return { capabilities: parsed.capabilities, appIds: parsed.appIds ?? null, envs: parsed.envs ?? null };
}

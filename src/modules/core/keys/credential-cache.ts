// Resolved keys, kept for a second: configuration delivery resolves a key on every request, and a
// database query each time would cost more than serving the document. Entries are found by the
// token itself (already in this process's memory with every request): hashing it first would
// double the cost of a hit. A revocation drops the key
// at once in the revoking process and, through a notification, in every other process; the short
// lifetime bounds how long a lost notification could let a revoked key through.
// Tokens no key has are remembered too, apart and briefly, so a flood of one made-up key costs no
// database read per request; apart, so such a flood cannot push real keys out. Forgetting them soon is
// only for memory: a token is random and issued by the server, so none is asked about before it exists.
import type { CredentialResolution } from '../../../platform/principal.js';

interface Entry {
  keyId: string;
  resolution: CredentialResolution;
  expiresAt: number;
}

const UNKNOWN: CredentialResolution = Object.freeze({ ok: false, reason: 'invalid' });

export interface CredentialCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  /** How long a token no key has is remembered (default 5 s), and how many such tokens (10,000). */
  unknownTtlMs?: number;
  maxUnknown?: number;
  now?: () => number;
}

export interface CredentialCache {
  get(token: string): CredentialResolution | undefined;
  set(token: string, keyId: string, resolution: CredentialResolution): void;
  /** Remembers that no key has this token. */
  setUnknown(token: string): void;
  /** Forgets every cached resolution of the key (it was revoked). */
  forgetKey(keyId: string): void;
}

export function createCredentialCache(options: CredentialCacheOptions = {}): CredentialCache {
  const ttlMs = options.ttlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const unknownTtlMs = options.unknownTtlMs ?? 5000;
  const maxUnknown = options.maxUnknown ?? 10_000;
  const now = options.now ?? Date.now;
  const byToken = new Map<string, Entry>();
  /** Tokens no key has, with the time they are forgotten; the oldest first. */
  const unknown = new Map<string, number>();

  return {
    get(token) {
      const entry = byToken.get(token);
      if (entry !== undefined) {
        if (entry.expiresAt > now()) return entry.resolution;
        byToken.delete(token);
        return undefined;
      }
      const forgetAt = unknown.get(token);
      if (forgetAt === undefined) return undefined;
      if (forgetAt > now()) return UNKNOWN;
      unknown.delete(token);
      return undefined;
    },
    set(token, keyId, resolution) {
      if (byToken.size >= maxEntries) byToken.delete(byToken.keys().next().value!);
      byToken.set(token, { keyId, resolution, expiresAt: now() + ttlMs });
    },
    setUnknown(token) {
      unknown.delete(token);
      if (unknown.size >= maxUnknown) unknown.delete(unknown.keys().next().value!);
      unknown.set(token, now() + unknownTtlMs);
    },
    forgetKey(keyId) {
      // One token per key, so a scan finds one entry; revocations are rare and the map is small.
      for (const [hash, entry] of byToken) if (entry.keyId === keyId) byToken.delete(hash);
    },
  };
}

// Resolved keys, kept for a second: configuration delivery resolves a key on every request, and a
// database query each time would cost more than serving the document. Entries are found by the
// token itself (already in this process's memory with every request): hashing it first would
// double the cost of a hit. A revocation drops the key
// at once in the revoking process and, through a notification, in every other process; the short
// lifetime bounds how long a lost notification could let a revoked key through.
import type { CredentialResolution } from '../../platform/principal.js';

interface Entry {
  keyId: string;
  resolution: CredentialResolution;
  expiresAt: number;
}

export interface CredentialCache {
  get(token: string): CredentialResolution | undefined;
  set(token: string, keyId: string, resolution: CredentialResolution): void;
  /** Forgets every cached resolution of the key (it was revoked). */
  forgetKey(keyId: string): void;
}

export function createCredentialCache(options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}): CredentialCache {
  const ttlMs = options.ttlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const byToken = new Map<string, Entry>();

  return {
    get(token) {
      const entry = byToken.get(token);
      if (entry === undefined) return undefined;
      if (entry.expiresAt > now()) return entry.resolution;
      byToken.delete(token);
      return undefined;
    },
    set(token, keyId, resolution) {
      if (byToken.size >= maxEntries) byToken.delete(byToken.keys().next().value!);
      byToken.set(token, { keyId, resolution, expiresAt: now() + ttlMs });
    },
    forgetKey(keyId) {
      // One token per key, so a scan finds one entry; revocations are rare and the map is small.
      for (const [hash, entry] of byToken) if (entry.keyId === keyId) byToken.delete(hash);
    },
  };
}

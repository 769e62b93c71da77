// Resolved keys, kept for a second: configuration delivery resolves a key on every request, and a
// database query each time would cost more than serving the document. A revocation drops the key
// at once in the revoking process and, through a notification, in every other process; the short
// lifetime bounds how long a lost notification could let a revoked key through.
import type { CredentialResolution } from '../../platform/principal.js';

interface Entry {
  keyId: string;
  resolution: CredentialResolution;
  expiresAt: number;
}

export interface CredentialCache {
  get(tokenHash: string): CredentialResolution | undefined;
  set(tokenHash: string, keyId: string, resolution: CredentialResolution): void;
  /** Forgets every cached resolution of the key (it was revoked). */
  forgetKey(keyId: string): void;
}

export function createCredentialCache(options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}): CredentialCache {
  const ttlMs = options.ttlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const byHash = new Map<string, Entry>();

  return {
    get(tokenHash) {
      const entry = byHash.get(tokenHash);
      if (entry === undefined) return undefined;
      if (entry.expiresAt > now()) return entry.resolution;
      byHash.delete(tokenHash);
      return undefined;
    },
    set(tokenHash, keyId, resolution) {
      if (byHash.size >= maxEntries) byHash.delete(byHash.keys().next().value!);
      byHash.set(tokenHash, { keyId, resolution, expiresAt: now() + ttlMs });
    },
    forgetKey(keyId) {
      // One token per key, so a scan finds one entry; revocations are rare and the map is small.
      for (const [hash, entry] of byHash) if (entry.keyId === keyId) byHash.delete(hash);
    },
  };
}

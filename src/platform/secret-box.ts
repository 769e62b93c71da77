// AES-256-GCM sealing for the short-lived secrets kept for idempotent replays; keys derive from the
// server secret with HKDF so each use has its own key.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'ensign', purpose, 32));
}

export function createSecretBox(secret: string, purpose = 'idempotency-replay'): SecretBox {
  const key = deriveKey(secret, purpose);
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
    },
    open(sealed) {
      const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', key, iv!);
      decipher.setAuthTag(tag!);
      return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
    },
  };
}

/** Keyed hash (HMAC-SHA256, hex) for values that must be comparable but never readable. */
/** Derived keys by secret and purpose: HKDF per call cost more than the HMAC it keys (ingestion hashes every subject). */
const derivedKeys = new Map<string, Buffer>();
const MAX_DERIVED_KEYS = 64;

export function keyedHash(secret: string, purpose: string, value: string): string {
  const id = `${purpose}\u0000${secret}`;
  let key = derivedKeys.get(id);
  if (!key) {
    if (derivedKeys.size >= MAX_DERIVED_KEYS) derivedKeys.clear();
    key = deriveKey(secret, purpose);
    derivedKeys.set(id, key);
  }
  return createHmac('sha256', key).update(value).digest('hex');
}

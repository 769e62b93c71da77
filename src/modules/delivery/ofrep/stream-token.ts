// Tokens that let a browser's EventSource (which cannot send headers) open the change stream of
// the environment a bulk evaluation was made for. A token names the key, not its secret: it is an
// HMAC-signed grant that only opens that one stream, is checked against the key's revocation when
// used, and expires. Tokens are issued per UTC day (the same token all day for one key), so the
// bulk response that advertises the stream keeps the same bytes, and ETag, while flags don't change.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../../platform/secret-box.js';
import type { EnvironmentPrincipal } from '../../../platform/principal.js';

const DAY_SECONDS = 86_400;

export type StreamGrant = Pick<EnvironmentPrincipal, 'type' | 'appId' | 'envId' | 'env' | 'keyId'> & {
  /** Epoch seconds after which the token opens nothing and open streams are ended. */
  expiresAt: number;
};

export interface StreamTokens {
  issue(principal: EnvironmentPrincipal, nowMs?: number): string;
  /** The grant of a well-formed, authentic, unexpired token; null otherwise. */
  verify(token: string, nowMs?: number): StreamGrant | null;
}

export function createStreamTokens(secret: string): StreamTokens {
  const key = deriveKey(secret, 'ofrep-event-stream/v1');
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest();

  return {
    issue(principal, nowMs = Date.now()) {
      // Valid until the end of the next UTC day: between 24 and 48 hours.
      const expiresAt = (Math.floor(nowMs / 1000 / DAY_SECONDS) + 2) * DAY_SECONDS;
      const grant: StreamGrant = {
        type: principal.type,
        appId: principal.appId,
        envId: principal.envId,
        env: principal.env,
        keyId: principal.keyId,
        expiresAt,
      };
      const payload = Buffer.from(JSON.stringify(grant)).toString('base64url');
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    verify(token, nowMs = Date.now()) {
      const dot = token.indexOf('.');
      if (dot <= 0 || token.length > 1024) return null;
      const payload = token.slice(0, dot);
      const signature = Buffer.from(token.slice(dot + 1), 'base64url');
      const expected = sign(payload);
      if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
      let grant: StreamGrant;
      try {
        grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as StreamGrant;
      } catch {
        return null;
      }
      if (!Number.isInteger(grant.expiresAt) || grant.expiresAt * 1000 <= nowMs) return null;
      return grant;
    },
  };
}

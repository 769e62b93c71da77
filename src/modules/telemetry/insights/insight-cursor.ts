// Opaque resume cursors of the insight queries: `<prefix><payload>.<mac>`, the payload base64url JSON
// and the MAC an HMAC-SHA256 under a key derived from the server secret. A cursor is bound to the
// credential that received it and to the query (its digest), and expires 15 minutes after issue.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppError, validationError } from '../../../platform/errors.js';
import { canonicalJson } from '../../../platform/canonical-json.js';

export const CURSOR_TTL_MS = 15 * 60_000;
export type CursorPrefix = 'ia1_' | 'ie1_';

export interface CursorClaims<P> {
  /** The credential (token or key id) the cursor was issued to. */
  credential: string;
  /** Digest of the query (body without cursor, deadline and format). */
  query: string;
  issuedAt: number;
  /** Buckets or events scanned by the requests so far, for cumulative cost. */
  scanned: number;
  position: P;
}

export interface CursorCodec {
  issue<P>(prefix: CursorPrefix, claims: CursorClaims<P>): string;
  /** The claims of a cursor this server issued for this credential and query; 400 or 409 otherwise. */
  open<P>(
    prefix: CursorPrefix,
    cursor: string,
    expect: { credential: string; query: string; now: number },
  ): CursorClaims<P>;
}

export function queryDigest(body: Record<string, unknown>): string {
  const { cursor: _c, deadlineAt: _d, format: _f, ...query } = body;
  return createHash('sha256').update(canonicalJson(query)).digest('base64url');
}

const refused = (message: string) =>
  validationError(
    message,
    [{ path: '/cursor', message }],
    'Pass the nextCursor of a previous page of the same query, sent with the same credential, unchanged.',
  );

export function createCursorCodec(secret: string): CursorCodec {
  const key = createHmac('sha256', secret).update('ensign/insight-cursor/v1').digest();
  const mac = (text: string) => createHmac('sha256', key).update(text).digest();

  return {
    issue(prefix, claims) {
      const payload = Buffer.from(
        JSON.stringify({
          c: claims.credential,
          q: claims.query,
          i: claims.issuedAt,
          s: claims.scanned,
          p: claims.position,
        }),
      ).toString('base64url');
      return `${prefix}${payload}.${mac(prefix + payload).toString('base64url')}`;
    },
    open(prefix, cursor, expect) {
      if (!cursor.startsWith(prefix)) throw refused(`The cursor does not start with ${prefix}.`);
      const body = cursor.slice(prefix.length);
      const dot = body.indexOf('.');
      if (dot < 0) throw refused('The cursor is not one this service issued.');
      const payload = body.slice(0, dot);
      const given = Buffer.from(body.slice(dot + 1), 'base64url');
      const wanted = mac(prefix + payload);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
        throw refused('The cursor is not one this service issued.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        c: string;
        q: string;
        i: number;
        s: number;
        p: unknown;
      };
      if (claims.c !== expect.credential) throw refused('The cursor was issued to another credential.');
      if (claims.q !== expect.query) throw refused('The cursor belongs to another query.');
      if (expect.now - claims.i > CURSOR_TTL_MS) {
        throw new AppError(409, 'insight_cursor_expired', 'The cursor is older than 15 minutes.', {
          resolution: 'Start a new query without a cursor.',
        });
      }
      return {
        credential: claims.c,
        query: claims.q,
        issuedAt: claims.i,
        scanned: claims.s,
        position: claims.p as never,
      };
    },
  };
}

// Strong, opaque entity tags for the delivered documents, and If-None-Match matching.
import { createHash, createHmac } from 'node:crypto';

/** A key for entity tags only, derived from the server secret so the secret itself is used for
 * one purpose. Tags are HMACs: they reveal nothing about the key id or the content. */
export function entityTagKeyOf(secret: string): Buffer {
  return createHmac('sha256', secret).update('ensign/entity-tag/v1').digest();
}

export function digestOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('base64url');
}

/** A quoted strong tag over `parts` (whatever the tag must change with). */
export function entityTag(key: Buffer, parts: string[]): string {
  return `"${createHmac('sha256', key).update(parts.join('\n')).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether `If-None-Match` matches `etag` (RFC 9110 section 13.1.2): a list of tags, compared
 * weakly (a `W/` prefix is ignored), or `*` for any current representation.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true; // what SDKs send: the tag they were given, verbatim
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}

// Opaque cursors for keyset pagination over time-ordered ids.
import { validationError } from './errors.js';

export function encodeCursor(prefix: string, lastId: string): string {
  return `${prefix}${Buffer.from(JSON.stringify({ b: lastId })).toString('base64url')}`;
}

export function decodeCursor(prefix: string, cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    if (!cursor.startsWith(prefix)) throw new Error('prefix');
    const parsed = JSON.parse(Buffer.from(cursor.slice(prefix.length), 'base64url').toString('utf8'));
    if (typeof parsed?.b !== 'string') throw new Error('shape');
    return parsed.b;
  } catch {
    throw validationError(
      'The cursor is not valid.',
      [{ path: 'querystring.cursor', message: 'is not a cursor this route issued' }],
      'Pass the nextCursor of a previous page unchanged.',
    );
  }
}

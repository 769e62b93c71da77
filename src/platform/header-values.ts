// Header values are printable ASCII (CONTRACT.md §7). Client-controlled text (event ids, keys, flag
// keys, any string a client stored) goes into a header only inside a JSON value written by
// `jsonHeaderValue`: every character outside U+0020–U+007E becomes a JSON `\uXXXX` escape, so
// `JSON.parse` of the header gives the exact text back, whatever it holds (Cyrillic, emoji, a lone
// surrogate, a control character). Node refuses header values outside Latin-1 and sends Latin-1 ones
// as single bytes a UTF-8 reader mis-decodes; ASCII is read the same by every client.
import { validateHeaderName, validateHeaderValue, type OutgoingHttpHeader } from 'node:http';

/** Every UTF-16 code unit outside printable ASCII (JSON.stringify already escapes C0, `"` and `\`). */
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/g;

const escapeUnit = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `value` as JSON in printable ASCII only: what every JSON-valued header carries. */
export function jsonHeaderValue(value: unknown): string {
  return JSON.stringify(value).replace(NOT_PRINTABLE_ASCII, escapeUnit);
}

/** Whether Node would write this header (name and value) rather than throw (Node validates arrays and numbers too). */
export function isWritableHeader(name: string, value: OutgoingHttpHeader | undefined): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value as string);
    return true;
  } catch {
    return false;
  }
}

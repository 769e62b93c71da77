// Text from the server reaches the operator's terminal: variants, metric keys, event ids and names
// that anyone holding a pub_ key may choose. A terminal obeys the control characters in it (ESC
// sequences that clear the screen, retitle the window or write the clipboard through OSC 52, a CR
// or NUL that hides what came before, a newline that fakes a row), so human output shows them as
// escapes instead: C0 and DEL as \xNN (\n, \r, \t as themselves), C1 as \u00NN, and the Unicode
// controls that reorder or break lines (bidirectional overrides and isolates, the line and
// paragraph separators) as \uNNNN. Backslashes are left as they are: text is escaped for reading,
// not for parsing back. JSON output keeps every value exact (see jsonForTerminal).

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Every character human output must not send raw. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_BUT_NEWLINE =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');

function escape(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code < 0x80 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`;
}

/**
 * `text` with its control characters shown as escapes. `keepNewlines` leaves line feeds alone, for
 * whole blocks of output whose lines are the command's own; a value put into a line never keeps them.
 */
export function visible(text: string, keepNewlines = false): string {
  return text.replace(keepNewlines ? CONTROL_BUT_NEWLINE : CONTROL, escape);
}

const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text safe for a terminal and equal in value: JSON.stringify already escapes C0 characters;
 * the others can only stand inside strings, where `\uNNNN` means the same character.
 */
export function jsonForTerminal(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${hex(c, 4)}`);
}

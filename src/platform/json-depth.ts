// A depth limit on client JSON. Parsing deep JSON is fine, but every recursive walk after it
// (validation, canonical JSON for fingerprints and digests, hashing, serialisation) overflows the
// stack on a body nested a few thousand levels deep, which answered 500. So bodies are refused past
// MAX_JSON_DEPTH levels of arrays and objects before they are parsed, in one iterative pass over the
// text: nothing after the parser ever sees deeper JSON (stored values were checked the same way
// when written, and the engine refuses deeper flag values on its own).
import { AppError } from './errors.js';
import { assertAcceptedValues, type JsonValueOptions } from './json-values.js';

/** Levels of arrays and objects a JSON body may nest; the body itself is level 1. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Whether JSON `text` nests arrays and objects deeper than `max`. Brackets inside strings do not
 * count. Text that is not JSON gives some answer, and the parser then refuses it anyway. */
export function exceedsJsonDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

export function tooDeepError(): AppError {
  const message = `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;
  return new AppError(400, 'validation_error', `The request body ${message}.`, {
    legacyCode: 'VALIDATION_ERROR',
    details: [{ path: '/', message }],
    resolution: `Send JSON nested at most ${MAX_JSON_DEPTH} levels deep.`,
  });
}

/** JSON.parse for request bodies, refusing nesting past MAX_JSON_DEPTH first, then the values no
 * body may carry (json-values.ts: non-finite numbers, prototype keys and U+0000 unless `options`
 * allow them).
 * @throws AppError (400 validation_error) when too deep or a value is refused; SyntaxError when not JSON. */
export function parseJsonBody(text: string, options?: JsonValueOptions): unknown {
  if (exceedsJsonDepth(text)) throw tooDeepError();
  const value: unknown = JSON.parse(text);
  assertAcceptedValues(value, options, text);
  return value;
}

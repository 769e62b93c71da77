// JSON value checks shared by validation (sizes, JSON-ness) and evaluation (prerequisite values
// compared by deep equality).

const MAX_DEPTH = 64;

/** True when `value` survives a JSON round trip unchanged: null, booleans, finite numbers,
 * strings, arrays and plain objects thereof (no undefined, NaN, Dates, class instances, cycles). */
export function isJsonValue(value: unknown, depth = 0): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
      if (!isPlainObject(value)) return false;
      return Object.values(value).every((item) => isJsonValue(item, depth + 1));
    }
    default:
      return false;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Size in UTF-8 bytes of the JSON serialisation: the unit of the 32 KiB and 4 KiB limits. */
export function jsonByteLength(value: unknown): number {
  return utf8ByteLength(JSON.stringify(value) ?? '');
}

/**
 * Length in bytes of `text` encoded as UTF-8, counted without encoding it (no Buffer, which only
 * Node has, and no allocation). A lone surrogate counts 3 bytes, as the U+FFFD that TextEncoder and
 * Buffer write in its place.
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

/** Deep equality of JSON values; object key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  const bRecord = b as Record<string, unknown>;
  const aRecord = a as Record<string, unknown>;
  for (const key of aKeys) {
    if (!Object.prototype.hasOwnProperty.call(bRecord, key)) return false;
    if (!jsonEqual(aRecord[key], bRecord[key])) return false;
  }
  return true;
}

export function isScalar(value: unknown): value is string | number | boolean {
  const kind = typeof value;
  return kind === 'string' || kind === 'boolean' || (kind === 'number' && Number.isFinite(value));
}

/**
 * A deep copy of plain data (what compileFlagSet is given: JSON values, with `undefined` kept where
 * a field holds it). Used instead of structuredClone, which ECMAScript does not define (React
 * Native's Hermes lacks it). Anything that is not an array or a plain object is copied by reference.
 */
export function cloneData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneData) as T;
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = cloneData(value[key]);
  return copy as T;
}

/** Freezes a JSON value in place, all the way down: compiled results share values by reference. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

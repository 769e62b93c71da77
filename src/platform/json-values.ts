// Values JSON.parse accepts but no request body may carry (CONTRACT.md §7):
// - a number that is not finite once parsed: `1e400` parses to Infinity, which no column stores
//   faithfully, sums into NaN, and makes a response serialiser throw;
// - a prototype key: `__proto__`, or `constructor` holding `prototype`, anywhere in a body (what
//   Fastify's own parser refused, answered as "not valid JSON"; this says which key);
// - the character U+0000 in a string or key: PostgreSQL's text cannot hold it, so a stored one
//   failed the transaction (a telemetry group: every batch in it), and SQLite would keep what
//   PostgreSQL refuses. JSON can only carry it escaped (`\u0000`), so bodies without that escape
//   are not searched for it.
// Bodies are at most MAX_JSON_DEPTH levels deep (json-depth.ts), so the walk's recursion is bounded.
import { AppError } from './errors.js';

export interface JsonValueOptions {
  /** Prototype keys: refused everywhere but on the evaluation routes, whose contexts are read only
   * through their own properties (context-json-parser.ts). */
  prototypeKeys?: 'refuse' | 'allow';
  /** A top-level field whose array items the route checks one by one (the telemetry batch's
   * `events`, where a bad item is that item's error, not the batch's): the walk skips them. */
  itemsAt?: string;
  /** U+0000 in strings and keys: refused unless allowed (evaluation contexts, never stored). */
  nulCharacters?: 'refuse' | 'allow';
}

/** A refused value: where it is (a JSON Pointer) and what is wrong with it. */
export interface RefusedValue {
  path: string;
  /** What is wrong, for a `details` entry: "is not a finite number". */
  problem: string;
  kind: 'non-finite' | 'prototype-key' | 'nul-character';
}

interface Found {
  kind: RefusedValue['kind'];
  /** Path segments, innermost first (pushed while unwinding). */
  segments: string[];
}

const pointerSegment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

interface WalkRules {
  refuseProto: boolean;
  refuseNul: boolean;
}

/** Whether a child needs visiting: numbers and containers always, strings when U+0000 is refused. */
const visited = (child: unknown, rules: WalkRules) =>
  typeof child === 'number' || isObject(child) || (rules.refuseNul && typeof child === 'string');

function walk(value: unknown, rules: WalkRules, skip: string | undefined): Found | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : { kind: 'non-finite', segments: [] };
  if (typeof value === 'string') return value.includes('\0') ? { kind: 'nul-character', segments: [] } : null;
  if (!isObject(value)) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (!visited(child, rules)) continue;
      const found = walk(child, rules, undefined);
      if (found) {
        found.segments.push(String(i));
        return found;
      }
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (rules.refuseProto) {
      if (key === '__proto__') return { kind: 'prototype-key', segments: [key] };
      if (key === 'constructor' && isObject(child) && Object.hasOwn(child, 'prototype'))
        return { kind: 'prototype-key', segments: ['prototype', key] };
    }
    if (rules.refuseNul && key.includes('\0')) return { kind: 'nul-character', segments: [key] };
    if (!visited(child, rules)) continue;
    if (key === skip && Array.isArray(child)) continue;
    const found = walk(child, rules, undefined);
    if (found) {
      found.segments.push(key);
      return found;
    }
  }
  return null;
}

/**
 * The first value of a parsed JSON document that a request may not carry, or null. `text`, the
 * document's JSON text when there is one, spares searching its strings when it holds no `\u0000`.
 */
export function findRefusedValue(value: unknown, options: JsonValueOptions = {}, text?: string): RefusedValue | null {
  const refuseNul = options.nulCharacters !== 'allow' && (text === undefined || text.includes('\\u0000'));
  const found = walk(value, { refuseProto: options.prototypeKeys !== 'allow', refuseNul }, options.itemsAt);
  if (!found) return null;
  const path = found.segments.length === 0 ? '/' : `/${found.segments.reverse().map(pointerSegment).join('/')}`;
  if (found.kind === 'non-finite') return { kind: found.kind, path, problem: 'is not a finite number' };
  if (found.kind === 'nul-character')
    return { kind: found.kind, path, problem: 'contains the character U+0000, which text cannot hold' };
  const key = found.segments[found.segments.length - 1] === 'prototype' ? 'constructor' : '__proto__';
  return { kind: found.kind, path, problem: `is the key "${key}", which is refused` };
}

/** The 400 of a body carrying a refused value, naming where it is. */
export function refusedValueError(refused: RefusedValue): AppError {
  const resolution = {
    'non-finite': 'Send finite numbers only: a literal such as 1e400 parses to Infinity and is refused.',
    'prototype-key':
      'Rename the key: "__proto__" and "constructor.prototype" could change the prototype of the objects built from the body.',
    'nul-character': 'Remove the U+0000 (NUL) characters from strings and keys.',
  }[refused.kind];
  return new AppError(400, 'validation_error', `${refused.path} ${refused.problem}.`, {
    legacyCode: 'VALIDATION_ERROR',
    details: [{ path: refused.path, message: refused.problem }],
    resolution,
  });
}

/** Throws the 400 of the first refused value of a parsed body. */
export function assertAcceptedValues(value: unknown, options?: JsonValueOptions, text?: string): void {
  const refused = findRefusedValue(value, options, text);
  if (refused) throw refusedValueError(refused);
}

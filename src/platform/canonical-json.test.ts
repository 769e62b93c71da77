// canonicalJson sorts an object's keys by insertion rather than with Array.prototype.sort; digests
// stored before must still match, so its bytes are held to those of the implementation it replaced,
// on every kind of value a caller can hand it (its quirks included).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson, digestOf } from './canonical-json.js';

/** The implementation before: a copy with keys sorted by Array.prototype.sort, then JSON.stringify. */
function reference(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

const keys = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    '0',
    '1',
    '2',
    '10',
    '01',
    '-1',
    '1.5',
    '4294967294',
    '4294967295',
    '99999999999',
    'é',
    '\u0000',
    '\ud800',
  ),
);

describe('canonicalJson', () => {
  test('writes the same bytes as before, for any value', () => {
    fc.assert(
      fc.property(
        fc.anything({
          key: keys,
          maxDepth: 4,
          withBoxedValues: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withObjectString: true,
          withSparseArray: true,
          withTypedArray: true,
          withUnicodeString: true,
        }),
        (value) => {
          assert.equal(canonicalJson(value), reference(value));
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('event-like objects with JSON from a client: numbers at their edges, prototype keys, index keys', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(
        fc.record({
          id: fc.string(),
          kind: fc.constantFrom('exposure', 'outcome', 'decision'),
          ts: fc.oneof(fc.integer(), fc.double()),
          value: json,
          attributes: fc.dictionary(keys, json, { maxKeys: 24 }),
          metricValue: fc.option(fc.double(), { nil: undefined }),
        }),
        (event) => {
          const parsed = JSON.parse(JSON.stringify(event)) as unknown;
          assert.equal(canonicalJson(event), reference(event));
          assert.equal(canonicalJson(parsed), reference(parsed));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('quirks kept on purpose: index keys first, __proto__ left out, Dates as {}, undefined and functions', () => {
    const parsed = JSON.parse('{"b":1,"10":2,"2":3,"a":[1,null],"__proto__":{"x":1}}') as unknown;
    assert.equal(canonicalJson(parsed), '{"2":3,"10":2,"a":[1,null],"b":1}');
    assert.equal(canonicalJson({ d: new Date(0), u: undefined, f: () => 1, n: -0, x: NaN }), '{"d":{},"n":0,"x":null}');
    assert.equal(canonicalJson([undefined, () => 1, Symbol('s')]), '[null,null,null]');
    assert.equal(canonicalJson(undefined), undefined);
    assert.throws(() => canonicalJson({ big: 1n }), TypeError);
    assert.throws(() => reference({ big: 1n }), TypeError);
  });

  test('digestOf is the SHA-256 of the canonical text, in hex', () => {
    const expected = createHash('sha256').update('{"a":"x","b":[1,{"c":null,"d":true}]}').digest('hex');
    assert.equal(digestOf({ b: [1, { d: true, c: null }], a: 'x' }), expected);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cloneData, jsonByteLength, utf8ByteLength } from './json-value.js';

describe('utf8ByteLength', () => {
  test('counts what Buffer and TextEncoder write, lone surrogates included', () => {
    for (const text of ['', 'abc', 'é', '日本語', '😀', '\ud800', 'a\udc00b', '\ud83d\ud83d', '\ud83d']) {
      assert.equal(utf8ByteLength(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text));
      assert.equal(utf8ByteLength(text), new TextEncoder().encode(text).length, JSON.stringify(text));
    }
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: fc.integer({ min: 0xd000, max: 0xe000 }).map((n) => String.fromCharCode(n)) }),
        (a, b) => {
          assert.equal(utf8ByteLength(a + b), Buffer.byteLength(a + b, 'utf8'));
        },
      ),
    );
  });

  test('jsonByteLength measures the serialisation', () => {
    assert.equal(jsonByteLength({ a: 'é' }), Buffer.byteLength('{"a":"é"}'));
    assert.equal(jsonByteLength(undefined), 0);
  });
});

describe('cloneData', () => {
  test('copies arrays and plain objects deeply, keeps undefined fields and shares nothing', () => {
    const source = { a: [1, { b: 'x' }], c: { d: null, e: undefined }, f: true };
    const copy = cloneData(source);
    assert.deepEqual(copy, source);
    assert.ok('e' in copy.c);
    assert.notEqual(copy.a, source.a);
    assert.notEqual(copy.a[1], source.a[1]);
    assert.notEqual(copy.c, source.c);
  });
});

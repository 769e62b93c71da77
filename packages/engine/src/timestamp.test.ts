import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { instantOf, isRfc3339, parseRfc3339 } from './timestamp.js';

describe('parseRfc3339', () => {
  test('accepts UTC, offsets and fractions', () => {
    assert.equal(parseRfc3339('2026-11-22T10:00:00Z'), Date.UTC(2026, 10, 22, 10));
    assert.equal(parseRfc3339('2026-11-22T10:00:00.123Z'), Date.UTC(2026, 10, 22, 10, 0, 0, 123));
    assert.equal(parseRfc3339('2026-11-22T12:30:00+02:30'), Date.UTC(2026, 10, 22, 10));
    assert.equal(parseRfc3339('2026-11-22T05:00:00-05:00'), Date.UTC(2026, 10, 22, 10));
    assert.equal(parseRfc3339('2026-11-22t10:00:00z'), Date.UTC(2026, 10, 22, 10));
    assert.equal(parseRfc3339('2026-11-22T10:00:00.5Z'), Date.UTC(2026, 10, 22, 10, 0, 0, 500));
    assert.equal(parseRfc3339('2026-11-22T10:00:00.123456789Z'), Date.UTC(2026, 10, 22, 10, 0, 0, 123));
    assert.equal(parseRfc3339('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
  });

  test('years below 100 are not shifted into the 1900s', () => {
    assert.equal(new Date(parseRfc3339('0050-01-01T00:00:00Z')).getUTCFullYear(), 50);
  });

  test('a leap second rolls into the next minute', () => {
    assert.equal(parseRfc3339('2016-12-31T23:59:60Z'), Date.UTC(2017, 0, 1));
  });

  test('rejects what is not an RFC 3339 date-time', () => {
    for (const text of [
      '2026-11-22',
      '2026-11-22T10:00:00',
      '2026-11-22 10:00:00Z',
      '2026-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-11-22T24:00:00Z',
      '2026-11-22T10:60:00Z',
      '2026-11-22T10:00:61Z',
      '2026-11-22T10:00:00+24:00',
      '2026-11-22T10:00:00+0200',
      'Sun, 22 Nov 2026 10:00:00 GMT',
      ' 2026-11-22T10:00:00Z',
      '',
    ]) {
      assert.ok(Number.isNaN(parseRfc3339(text)), text);
      assert.equal(isRfc3339(text), false, text);
    }
  });
});

describe('instantOf', () => {
  test('reads RFC 3339 strings, epoch milliseconds and Dates', () => {
    const at = Date.UTC(2026, 0, 1);
    assert.equal(instantOf('2026-01-01T00:00:00Z'), at);
    assert.equal(instantOf(at), at);
    assert.equal(instantOf(new Date(at)), at);
  });

  test('anything else is NaN', () => {
    for (const value of [undefined, null, true, 'tomorrow', Infinity, NaN, {}, []]) {
      assert.ok(Number.isNaN(instantOf(value)), String(value));
    }
  });
});

// The timestamp's date-time check accepts exactly what ajv-formats' full date-time format accepts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isDateTime } from './timestamp-format.js';

const definition = fullFormats['date-time'] as { validate: (value: string) => boolean };
const reference = (value: string) => definition.validate(value);

const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** Timestamps near the common shape: every field at and past its range, separators and offsets varied. */
const nearCommon = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 19 }),
    day: fc.integer({ min: 0, max: 39 }),
    hour: fc.integer({ min: 0, max: 29 }),
    minute: fc.integer({ min: 0, max: 69 }),
    second: fc.integer({ min: 0, max: 69 }),
    fraction: fc.option(fc.stringMatching(/^\d{1,12}$/), { nil: undefined }),
    separator: fc.constantFrom('T', 't', ' ', '\u00a0', 'TT', '', 'x'),
    offset: fc.oneof(
      fc.constantFrom('Z', 'z', '', '+00', '-0130', '+01:3', 'Zz'),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 29 }), fc.integer({ min: 0, max: 69 }))
        .map(([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`),
    ),
  })
  .map(
    (t) =>
      `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)}${t.separator}${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}${t.fraction === undefined ? '' : '.' + t.fraction}${t.offset}`,
  );

describe('timestamp date-time format', () => {
  test('agrees with ajv-formats on timestamps near the common shape', () => {
    fc.assert(
      fc.property(nearCommon, (value) => {
        assert.equal(isDateTime(value), reference(value), value);
      }),
      { numRuns: 20_000 },
    );
  });

  test('agrees with ajv-formats on any text, and on small edits of valid timestamps', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        assert.equal(isDateTime(value), reference(value));
      }),
      { numRuns: 5_000 },
    );
    fc.assert(
      fc.property(nearCommon, fc.nat(40), fc.string({ maxLength: 2, unit: 'binary' }), (value, at, insert) => {
        const edited = value.slice(0, at) + insert + value.slice(at + 1);
        assert.equal(isDateTime(edited), reference(edited), JSON.stringify(edited));
      }),
      { numRuns: 20_000 },
    );
  });

  test('examples: leap days and seconds, offsets at their edges', () => {
    for (const [value, expected] of [
      ['2024-02-29T12:00:00Z', true],
      ['2023-02-29T12:00:00Z', false],
      ['2000-02-29T00:00:00.123456789+23:59', true],
      ['1900-02-29T00:00:00Z', false],
      ['2026-11-27T23:59:60Z', true],
      ['2026-11-27T22:59:60-01:00', true],
      ['2026-11-27T12:00:60Z', false],
      ['2026-11-27T12:00:00+24:00', false],
      ['2026-11-27T12:00:00', false],
      ['2026-11-27t12:00:00z', true],
      ['2026-11-27 12:00:00Z', true],
    ] as const) {
      assert.equal(isDateTime(value), expected, value);
      assert.equal(reference(value), expected, `ajv-formats: ${value}`);
    }
  });
});

// The ids' ULIDs (ids.ts): the spec's encoding, read back by the `ulid` package's decoder, strictly
// increasing within a process whatever the clock does, and the random part's carries.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decodeTime } from 'ulid';
import { monotonicUlids, newId } from './ids.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const HALF = 2 ** 40;

/** The 80 random bits of a ULID, as a number pair's BigInt. */
const randomOf = (id: string) => [...id.slice(10)].reduce((n, c) => n * 32n + BigInt(ALPHABET.indexOf(c)), 0n);
/** A random source answering the given 40-bit values in turn. */
const source = (values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

describe('ids', () => {
  test('the time and the random bits are encoded as the ULID spec says', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.integer({ min: 0, max: HALF - 1 }),
        fc.integer({ min: 0, max: HALF - 1 }),
        (time, high, low) => {
          const id = monotonicUlids(source([high, low]))(time);
          assert.match(id, ULID);
          assert.equal(decodeTime(id), time);
          assert.equal(randomOf(id), BigInt(high) * BigInt(HALF) + BigInt(low));
        },
      ),
    );
  });

  test('each id is greater than the one before, within a millisecond and when the clock goes back', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 48 - 1 }), { minLength: 2, maxLength: 60 }), (times) => {
        const next = monotonicUlids(source([HALF - 2, HALF - 3, 7, 0, 123456789]));
        let previous = '';
        for (const time of [...times, ...times]) {
          const id = next(time);
          assert.ok(id > previous, `${id} after ${previous}`);
          previous = id;
        }
      }),
    );
  });

  test('the random part carries into its upper half, and overflowing it is refused', () => {
    const next = monotonicUlids(source([5, HALF - 1]));
    const first = next(1000);
    const second = next(1000);
    assert.equal(randomOf(second), 6n * BigInt(HALF));
    assert.equal(second.slice(0, 10), first.slice(0, 10));
    const full = monotonicUlids(source([HALF - 1, HALF - 1]));
    full(1000);
    assert.throws(() => full(1000), /overflowed/);
    assert.match(full(1001), ULID, 'the next millisecond starts afresh');
  });

  test('a time the format cannot hold is refused', () => {
    const next = monotonicUlids(source([0]));
    for (const time of [-1, 1.5, 2 ** 48, Number.NaN]) assert.throws(() => next(time), RangeError);
  });

  test('newId: the prefix, then a ULID of now', () => {
    const before = Date.now();
    const ids = Array.from({ length: 1000 }, () => newId('req'));
    const after = Date.now();
    for (const [i, id] of ids.entries()) {
      assert.match(id, /^req_[0-9A-HJKMNP-TV-Z]{26}$/);
      const time = decodeTime(id.slice(4));
      assert.ok(time >= before && time <= after);
      if (i > 0) assert.ok(id > ids[i - 1]!);
    }
  });
});

// Opaque, time-ordered ids with a type prefix (CONTRACT section 1): the prefix, an underscore and a
// monotonic ULID (https://github.com/ulid/spec): 10 Crockford base32 characters of the millisecond
// time, then 16 of randomness (80 bits); within one millisecond the randomness of the previous id
// plus one, so ids made by this process are strictly increasing.
//
// Written here rather than taken from the `ulid` package (used before, decision 0068): every request
// gets a request id, and the package encodes the time anew and rebuilds its random string character by
// character on each call (330 ns); this keeps the time's characters per millisecond and the random
// part as numbers, and costs about a third of that (110 ns). The same encoding, checked by property tests
// against the package's decoder (ids.test.ts).
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Every two-character base32 string, by its 10-bit value: the random part is written 10 bits at a time. */
const PAIRS: string[] = Array.from({ length: 1024 }, (_, v) => ALPHABET[v >> 5]! + ALPHABET[v & 31]!);
const TIME_MAX = 2 ** 48 - 1;

// The random part as two 40-bit halves (exact in doubles), drawn from a pool of system randomness.
const pool = new Uint8Array(4096);
let drawn = pool.length;
function random40(): number {
  if (drawn + 5 > pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const b = pool;
  const i = drawn;
  drawn += 5;
  return b[i]! * 2 ** 32 + ((b[i + 1]! << 24) >>> 0) + (b[i + 2]! << 16) + (b[i + 3]! << 8) + b[i + 4]!;
}

const HALF = 2 ** 40;

function encode40(value: number): string {
  const top = Math.floor(value / 2 ** 20);
  const bottom = value % 2 ** 20;
  return PAIRS[top >> 10]! + PAIRS[top & 1023]! + PAIRS[bottom >> 10]! + PAIRS[bottom & 1023]!;
}

function encodeTime(time: number): string {
  let out = '';
  for (let i = 9, t = time; i >= 0; i--, t = Math.floor(t / 32)) out = ALPHABET[t % 32]! + out;
  return out;
}

/**
 * A generator of monotonic ULIDs: called with the time in milliseconds since the epoch, it answers
 * an id greater than every one it made before. `random40` gives 40 random bits as a number (the
 * tests pass their own, to reach the carries).
 */
export function monotonicUlids(random40: () => number): (time: number) => string {
  let lastTime = -1;
  let timeChars = '';
  let high = 0;
  let low = 0;
  return (time) => {
    if (!Number.isInteger(time) || time < 0 || time > TIME_MAX) throw new RangeError(`cannot encode time ${time}`);
    if (time > lastTime) {
      lastTime = time;
      timeChars = encodeTime(time);
      high = random40();
      low = random40();
    } else if (++low === HALF) {
      // Within one millisecond (or after the clock went back): the previous randomness plus one.
      low = 0;
      if (++high === HALF) throw new Error('cannot make another id in this millisecond: its random part overflowed');
    }
    return timeChars + encode40(high) + encode40(low);
  };
}

const nextUlid = monotonicUlids(random40);

export type IdPrefix = 'usr' | 'tok' | 'app' | 'env' | 'key' | 'chg' | 'req' | string;

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid(Date.now())}`;
}

/** RFC 3339 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

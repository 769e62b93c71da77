import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import murmurhash from 'murmurhash';
import fc from 'fast-check';
import {
  BUCKET_COUNT,
  bucketOf,
  createBucketer,
  murmur3,
  rolloutThreshold,
  variantBounds,
  variantIndexOf,
} from './bucketing.js';

/** Independent murmur3_x86_32 straight from the reference C code (Math.imul for 32-bit products). */
function referenceMurmur3(bytes: Uint8Array, seed = 0): number {
  let h = seed >>> 0;
  const blocks = bytes.length & ~3;
  const mixK = (k: number) => Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
  for (let i = 0; i < blocks; i += 4) {
    const k = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    h ^= mixK(k);
    h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
  }
  const tail = bytes.length & 3;
  let k = 0;
  if (tail >= 3) k ^= bytes[blocks + 2] << 16;
  if (tail >= 2) k ^= bytes[blocks + 1] << 8;
  if (tail >= 1) h ^= mixK(k ^ bytes[blocks]);
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}
const utf8 = (s: string) => new TextEncoder().encode(s);

describe('murmur3_x86_32', () => {
  test('published test vectors (seed 0)', () => {
    for (const [input, expected] of [
      ['', 0],
      ['hello', 0x248bfa47],
      ['The quick brown fox jumps over the lazy dog', 0x2e4ff723],
    ] as const) {
      assert.equal(murmurhash.v3(utf8(input), 0), expected, input);
      assert.equal(referenceMurmur3(utf8(input)), expected, `reference: ${input}`);
    }
  });

  test('the reference implementation agrees with other published vectors', () => {
    assert.equal(referenceMurmur3(utf8(''), 1), 0x514e28b7);
    assert.equal(referenceMurmur3(utf8('test'), 0), 0xba6bd213);
  });

  test('non-ASCII input is hashed as UTF-8 bytes', () => {
    for (const input of ['héllo wörld', '日本語', '😀', 'straße/münchen']) {
      const expected = referenceMurmur3(utf8(input));
      assert.equal(murmurhash.v3(utf8(input), 0), expected, input);
    }
    // Pinned so a change of encoding (UTF-16 code units, Latin-1) cannot slip through.
    assert.equal(murmurhash.v3(utf8('héllo wörld'), 0), 0x97f7f274);
    assert.equal(murmurhash.v3(utf8('日本語'), 0), 0xa5a47297);
    assert.equal(murmurhash.v3(utf8('😀'), 0), 0xbeb42efa);
  });

  test("the engine's own murmur3 equals the murmurhash package and the reference on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        assert.equal(murmur3(bytes), murmurhash.v3(bytes, 0));
        assert.equal(murmur3(bytes), referenceMurmur3(bytes));
      }),
      { numRuns: 3000 },
    );
    assert.equal(murmur3(utf8('hello')), 0x248bfa47);
    assert.equal(murmur3(utf8('😀')), 0xbeb42efa);
  });

  test('bucketOf matches the reference for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (salt, key) => {
        assert.equal(bucketOf(salt, key), referenceMurmur3(utf8(`${salt}/${key}`)) % BUCKET_COUNT);
      }),
      { numRuns: 2000 },
    );
  });

  test('keys longer than the scratch buffer hash the same way', () => {
    const key = 'k'.repeat(40_000) + 'é';
    assert.equal(bucketOf('salt', key), referenceMurmur3(utf8(`salt/${key}`)) % BUCKET_COUNT);
  });
});

describe('bucketOf golden values', () => {
  // These pin the wire formula bucket = murmur3_x86_32(utf8(salt + "/" + key), 0) mod 10000.
  // Changing any of them moves real users between variants: never update them to make a test pass.
  const golden: Array<[string, string, number]> = [
    ['new-checkout', 'user-1', 7752],
    ['new-checkout', 'user-2', 1356],
    ['new-checkout', 'user-42', 9590],
    ['banner', 'alice@example.com', 775],
    ['banner', 'bob@example.com', 3952],
    ['pricing:v2', 'org_01HZX3', 7771],
    ['a', 'b', 7863],
    ['exp.color', '😀', 4646],
    ['straße', 'münchen-42', 7369],
    ['new-checkout', '', 2437],
  ];
  for (const [salt, key, bucket] of golden) {
    test(`${salt} / ${JSON.stringify(key)} → ${bucket}`, () => {
      assert.equal(bucketOf(salt, key), bucket);
      assert.equal(createBucketer(salt)(key), bucket);
    });
  }

  test('a bucketer reused across salts does not leak bytes between them', () => {
    const long = createBucketer('a-much-longer-salt-than-the-other');
    const short = createBucketer('a');
    assert.equal(long('user-1'), bucketOf('a-much-longer-salt-than-the-other', 'user-1'));
    assert.equal(short('b'), 7863);
    assert.equal(long('user-1'), bucketOf('a-much-longer-salt-than-the-other', 'user-1'));
  });
});

describe('thresholds and variant ranges', () => {
  test('rollout of p percent takes buckets below round(p × 100)', () => {
    assert.equal(rolloutThreshold(0), 0);
    assert.equal(rolloutThreshold(0.01), 1);
    assert.equal(rolloutThreshold(12.34), 1234);
    assert.equal(rolloutThreshold(33.33), 3333);
    assert.equal(rolloutThreshold(100), 10_000);
  });

  test('variants take consecutive ranges in listed order', () => {
    assert.deepEqual(variantBounds([50, 50]), [5000, 10_000]);
    assert.deepEqual(variantBounds([33.33, 33.33, 33.34]), [3333, 6666, 10_000]);
    assert.deepEqual(variantBounds([0, 100, 0]), [0, 10_000, 10_000]);
    const bounds = variantBounds([10, 20, 70]);
    assert.equal(variantIndexOf(bounds, 0), 0);
    assert.equal(variantIndexOf(bounds, 999), 0);
    assert.equal(variantIndexOf(bounds, 1000), 1);
    assert.equal(variantIndexOf(bounds, 2999), 1);
    assert.equal(variantIndexOf(bounds, 3000), 2);
    assert.equal(variantIndexOf(bounds, 9999), 2);
  });

  test('a zero-weight variant never receives a bucket', () => {
    const bounds = variantBounds([0, 100, 0]);
    for (let bucket = 0; bucket < BUCKET_COUNT; bucket += 37) assert.equal(variantIndexOf(bounds, bucket), 1);
  });
});

// Deterministic subject bucketing shared by rollouts, variants and experiments:
//   bucket = murmur3_x86_32(utf8(salt + "/" + targetingKey), seed 0) mod 10000
// The formula is part of the wire contract (SDKs in other languages must reproduce it), so the
// golden tests in bucketing.test.ts pin it.

export const BUCKET_COUNT = 10_000;

// TextEncoder is not ECMAScript but a web-platform global that every runtime the engine targets
// has (browsers, Node, Deno, Bun, edge workers). The engine compiles against ES2022 alone, so it
// declares the little it uses here, in this module's scope only.
interface Utf8Encoder {
  encode(input: string): Uint8Array;
  encodeInto(input: string, destination: Uint8Array): { read: number; written: number };
}
declare const TextEncoder: { new (): Utf8Encoder };

// Encoding each key into a fresh array would cost ~4× the hash itself. We encode into one shared
// scratch buffer instead; JavaScript is single-threaded and nothing here yields, so sharing it is
// safe.
const encoder: Utf8Encoder = new TextEncoder();
const SCRATCH_SIZE = 16 * 1024;
const scratch = new Uint8Array(SCRATCH_SIZE);

/** A function from targeting key to bucket for one salt, with the salt's bytes encoded once. */
export type Bucketer = (targetingKey: string) => number;

export function createBucketer(salt: string): Bucketer {
  const prefix = encoder.encode(salt + '/');
  if (prefix.length >= SCRATCH_SIZE / 2) {
    return (targetingKey) => hashBytes(encoder.encode(salt + '/' + targetingKey));
  }
  // The prefix's whole 4-byte blocks mix the same way for every key: that state is computed once,
  // and a key only carries the prefix's last 0–3 bytes into its own blocks.
  const whole = prefix.length & ~3;
  const prefixState = mixBlocks(prefix, whole);
  const carried = prefix.length - whole;
  const carry =
    carried === 0
      ? 0
      : prefix[whole]! | (carried > 1 ? prefix[whole + 1]! << 8 : 0) | (carried > 2 ? prefix[whole + 2]! << 16 : 0);
  const start = prefix.length;
  const tail = scratch.subarray(start);
  return (targetingKey) => {
    // Targeting keys are nearly always ASCII (ids, emails): hashed straight from the string's code
    // units, without copying them anywhere; anything else is encoded properly.
    const hashed = asciiHash(prefixState, carry, carried, start, targetingKey);
    if (hashed >= 0) return hashed % BUCKET_COUNT;
    scratch.set(prefix);
    const { read, written } = encoder.encodeInto(targetingKey, tail);
    // `read` counts UTF-16 code units; fewer than the whole key means the buffer was too small.
    if (read !== targetingKey.length) return hashBytes(encoder.encode(salt + '/' + targetingKey));
    return hashBytes(scratch.subarray(0, prefix.length + written));
  };
}

export function bucketOf(salt: string, targetingKey: string): number {
  return createBucketer(salt)(targetingKey);
}

function hashBytes(bytes: Uint8Array): number {
  return murmur3(bytes) % BUCKET_COUNT;
}

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixKey(k: number): number {
  k = Math.imul(k, C1);
  return Math.imul((k << 15) | (k >>> 17), C2);
}

/** MurmurHash3 x86 32-bit, seed 0, of UTF-8 bytes. Written out (15 lines) instead of the
 * murmurhash package, which also carries v2 and a string encoder into every browser bundle; the
 * golden tests and bucketing.test.ts's comparison with the package pin it. */
export function murmur3(bytes: Uint8Array): number {
  const length = bytes.length;
  const whole = length & ~3;
  let h = mixBlocks(bytes, whole);
  const rest = length & 3;
  if (rest > 0) {
    let k = bytes[whole]!;
    if (rest > 1) k |= bytes[whole + 1]! << 8;
    if (rest > 2) k |= bytes[whole + 2]! << 16;
    h ^= mixKey(k);
  }
  return finalMix(h, length);
}

/** The hash state after the first `whole` bytes (a multiple of 4) of `bytes`. */
function mixBlocks(bytes: Uint8Array, whole: number): number {
  let h = 0;
  for (let i = 0; i < whole; i += 4) {
    h = mixBlock(h, bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
  }
  return h;
}

function mixBlock(h: number, k: number): number {
  h ^= mixKey(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalMix(h: number, length: number): number {
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * murmur3 of the prefix (given as its state, its last `carried` bytes in `carry`, its byte length)
 * followed by `key`, when `key` is ASCII (one byte per code unit); -1 when it is not.
 */
function asciiHash(state: number, carry: number, carried: number, prefixLength: number, key: string): number {
  let h = state;
  let k = carry;
  let filled = carried;
  const length = key.length;
  for (let i = 0; i < length; i++) {
    const unit = key.charCodeAt(i);
    if (unit >= 0x80) return -1;
    k |= unit << (filled << 3);
    if (++filled === 4) {
      h = mixBlock(h, k);
      k = 0;
      filled = 0;
    }
  }
  if (filled > 0) h ^= mixKey(k);
  return finalMix(h, prefixLength + length);
}

/** Buckets below this bound are in a rollout of `percentage` percent (0..100, two decimals). */
export function rolloutThreshold(percentage: number): number {
  return Math.min(BUCKET_COUNT, Math.max(0, Math.round(percentage * 100)));
}

/**
 * Exclusive upper bucket bound of each variant, in listed order: variant i owns
 * [bounds[i-1], bounds[i]). Bounds come from the rounded running sum of the weights (not from
 * summing rounded weights) so float error cannot accumulate, and the last bound is pinned to
 * BUCKET_COUNT so every bucket belongs to some variant.
 */
export function variantBounds(weights: readonly number[]): number[] {
  const bounds: number[] = [];
  let cumulative = 0;
  for (const weight of weights) {
    cumulative += weight;
    bounds.push(rolloutThreshold(cumulative));
  }
  if (bounds.length > 0) bounds[bounds.length - 1] = BUCKET_COUNT;
  return bounds;
}

/** Index of the variant owning `bucket`, given bounds from `variantBounds`. */
export function variantIndexOf(bounds: readonly number[], bucket: number): number {
  // Linear scan: flags have a handful of variants, and this beats a binary search below ~16.
  for (let i = 0; i < bounds.length; i++) {
    if (bucket < bounds[i]) return i;
  }
  return bounds.length - 1;
}

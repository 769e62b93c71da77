// Deterministic subject bucketing shared by rollouts, variants and experiments:
//   bucket = murmur3_x86_32(utf8(salt + "/" + targetingKey), seed 0) mod 10000
// The formula is part of the wire contract (SDKs in other languages must reproduce it), so the
// golden tests in bucketing.test.ts pin it.
import murmurhash from 'murmurhash';

export const BUCKET_COUNT = 10_000;

// TextEncoder is not ECMAScript but a web-platform global that every runtime the engine targets
// has (browsers, Node, Deno, Bun, edge workers). The engine compiles against ES2022 alone, so it
// declares the little it uses here, in this module's scope only.
interface Utf8Encoder {
  encode(input: string): Uint8Array;
  encodeInto(input: string, destination: Uint8Array): { read: number; written: number };
}
declare const TextEncoder: { new (): Utf8Encoder };

// murmurhash@2 encodes string input with TextEncoder (UTF-8), but allocating a fresh array per call
// costs ~4× the hash itself. We encode into one shared scratch buffer instead; JavaScript is
// single-threaded and nothing here yields, so sharing it is safe.
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
  const tail = scratch.subarray(prefix.length);
  return (targetingKey) => {
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
  return murmurhash.v3(bytes, 0) % BUCKET_COUNT;
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

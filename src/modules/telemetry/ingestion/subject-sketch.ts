// A mergeable approximate distinct-subject counter: HyperLogLog with 2^12 registers (relative
// standard error 1.04/√4096 ≈ 1.6 %), stored compactly. bloom-filters' HyperLogLog was the first
// choice, but it cannot serve here (decision 0015): it keeps the 0-based position of the first set
// bit as the register value, so an empty register and a register that saw "1…" are both 0 and the
// linear-counting correction it applies below 2.5·m (where every cohort of interest lies: the
// suppression threshold is 20 subjects) overcounts; it hashes through a 64-character binary string
// per update; and it serialises to a JSON array of 4,096 numbers per bucket. This one hashes with
// murmur3 (two seeds: 12 bits pick the register, a further 32 bits give the rank) and stores a sparse
// list of (register, rank) pairs until the dense 4 KiB form is smaller.
import murmurhash from 'murmurhash';

const UTF8 = new TextEncoder();

export const SKETCH_PRECISION = 12;
const M = 1 << SKETCH_PRECISION;
const SPARSE = 1;
const DENSE = 2;
/** Sparse entries are 3 bytes; past this many the dense form (M bytes) is smaller. */
const SPARSE_LIMIT = Math.floor(M / 3);
const ALPHA = 0.7213 / (1 + 1.079 / M);
/** 2^-rank for every possible rank (0..33), so estimating a dense sketch makes no Math.pow calls. */
const INVERSE_POWERS = Float64Array.from({ length: 34 }, (_, r) => 2 ** -r);

export const SKETCH_RELATIVE_STANDARD_ERROR = Math.round((1.04 / Math.sqrt(M)) * 10000) / 10000;

function rankOf(hash: number): number {
  // Position of the first set bit of a 32-bit value, 1-based; 33 when none is set.
  return hash === 0 ? 33 : Math.clz32(hash) + 1;
}

export class SubjectSketch {
  /** Sparse registers (register → rank) until they outgrow SPARSE_LIMIT, then dense. */
  private sparse: Map<number, number> | null = new Map();
  private dense: Uint8Array | null = null;
  /** In dense form, Σ 2^-register and the number of zero registers, kept as registers rise so an
   * estimate reads them instead of walking 4,096 registers (a query estimates up to 1,000 cells).
   * Every term is a power of two ≥ 2^-33 and the sum ≤ 2^12, so the running sum is exact. */
  private denseSum = M;
  private denseZeros = M;

  /** A sketch that starts dense: queries merge many stored sketches into few, and writing registers
   * of a 4 KiB array is far cheaper than growing a map. */
  static forMerging(): SubjectSketch {
    const sketch = new SubjectSketch();
    sketch.densify();
    return sketch;
  }

  static decode(bytes: Uint8Array | null | undefined): SubjectSketch {
    const sketch = new SubjectSketch();
    if (bytes && bytes.length > 0) sketch.mergeBytes(bytes);
    return sketch;
  }

  add(subject: string): void {
    // Encoded once for both hashes: given a string, murmurhash makes a TextEncoder and a copy per call.
    const bytes = UTF8.encode(subject);
    const index = murmurhash.v3(bytes, 0x5eed) >>> (32 - SKETCH_PRECISION);
    this.set(index, rankOf(murmurhash.v3(bytes, 0x0b5e55ed)));
  }

  private set(index: number, rank: number): void {
    if (this.dense) {
      this.raise(this.dense, index, rank);
      return;
    }
    const sparse = this.sparse!;
    const current = sparse.get(index);
    if (current === undefined || current < rank) sparse.set(index, rank);
    if (sparse.size > SPARSE_LIMIT) this.densify();
  }

  /** Raises a dense register to `rank` when that is higher, keeping the running sum and zeros. */
  private raise(dense: Uint8Array, index: number, rank: number): void {
    const current = dense[index]!;
    if (current >= rank) return;
    dense[index] = rank;
    this.denseSum += INVERSE_POWERS[rank]! - INVERSE_POWERS[current]!;
    if (current === 0) this.denseZeros--;
  }

  private densify(): void {
    const dense = new Uint8Array(M);
    this.dense = dense;
    this.denseSum = M;
    this.denseZeros = M;
    for (const [index, rank] of this.sparse!) this.raise(dense, index, rank);
    this.sparse = null;
  }

  merge(other: SubjectSketch): void {
    if (other.dense) {
      if (!this.dense) this.densify();
      const mine = this.dense!;
      const theirs = other.dense;
      for (let i = 0; i < M; i++) if (mine[i]! < theirs[i]!) this.raise(mine, i, theirs[i]!);
      return;
    }
    for (const [index, rank] of other.sparse!) this.set(index, rank);
  }

  /** Merges a stored sketch without building an object for it (query scans merge thousands). */
  mergeBytes(bytes: Uint8Array): void {
    if (bytes[0] === DENSE && bytes.length === M + 1) {
      if (!this.dense) this.densify();
      const mine = this.dense!;
      for (let i = 0; i < M; i++) if (mine[i]! < bytes[i + 1]!) this.raise(mine, i, bytes[i + 1]!);
      return;
    }
    if (bytes[0] !== SPARSE || (bytes.length - 1) % 3 !== 0) throw new Error('not a subject sketch');
    const dense = this.dense;
    if (dense) {
      for (let o = 1; o < bytes.length; o += 3) this.raise(dense, (bytes[o]! << 8) | bytes[o + 1]!, bytes[o + 2]!);
      return;
    }
    for (let o = 1; o < bytes.length; o += 3) this.set((bytes[o]! << 8) | bytes[o + 1]!, bytes[o + 2]!);
  }

  encode(): Buffer {
    if (this.dense) {
      const out = Buffer.allocUnsafe(M + 1);
      out[0] = DENSE;
      out.set(this.dense, 1);
      return out;
    }
    const entries = [...this.sparse!].sort((a, b) => a[0] - b[0]);
    const out = Buffer.allocUnsafe(1 + entries.length * 3);
    out[0] = SPARSE;
    let o = 1;
    for (const [index, rank] of entries) {
      out[o++] = index >> 8;
      out[o++] = index & 0xff;
      out[o++] = rank;
    }
    return out;
  }

  /**
   * The encoding of this sketch merged with a stored one: what `mergeBytes(stored)` then `encode()`
   * give, without decoding the stored sketch into a map and sorting it again. Ingestion merges a
   * batch's few registers into the stored sketch of every bucket it touches; stored sparse entries
   * are sorted by register (encode), so a sparse pair is one ordered merge.
   */
  encodeMergedWith(stored: Uint8Array): Buffer {
    const storedDense = stored[0] === DENSE && stored.length === M + 1;
    if (!storedDense && (stored[0] !== SPARSE || (stored.length - 1) % 3 !== 0))
      throw new Error('not a subject sketch');
    if (this.dense || storedDense) return denseEncoding([stored, this.encode()]);
    const mine = [...this.sparse!].sort((a, b) => a[0] - b[0]);
    const out = Buffer.allocUnsafe(stored.length + mine.length * 3);
    out[0] = SPARSE;
    let o = 1;
    let i = 1;
    let j = 0;
    while (i < stored.length || j < mine.length) {
      const storedIndex = i < stored.length ? (stored[i]! << 8) | stored[i + 1]! : M;
      const mineIndex = j < mine.length ? mine[j]![0] : M;
      const index = Math.min(storedIndex, mineIndex);
      let rank = 0;
      if (storedIndex === index) {
        rank = stored[i + 2]!;
        i += 3;
      }
      if (mineIndex === index) {
        rank = Math.max(rank, mine[j]![1]);
        j++;
      }
      out[o++] = index >> 8;
      out[o++] = index & 0xff;
      out[o++] = rank;
    }
    const merged = out.subarray(0, o);
    return (o - 1) / 3 > SPARSE_LIMIT ? denseEncoding([merged]) : merged;
  }

  get empty(): boolean {
    return this.sparse !== null && this.sparse.size === 0;
  }

  /** The estimated number of distinct subjects added (HyperLogLog with linear counting when small). */
  estimate(): number {
    let sum: number;
    let zeros: number;
    if (this.dense) {
      sum = this.denseSum;
      zeros = this.denseZeros;
    } else {
      zeros = M - this.sparse!.size;
      sum = zeros;
      for (const rank of this.sparse!.values()) sum += INVERSE_POWERS[rank]!;
    }
    return estimateFrom(sum, zeros);
  }
}

/** HyperLogLog's estimate from Σ 2^-register and the number of zero registers, with linear counting
 * when small. */
function estimateFrom(sum: number, zeros: number): number {
  const raw = (ALPHA * M * M) / sum;
  if (raw <= 2.5 * M && zeros > 0) return M * Math.log(M / zeros);
  return raw;
}

// Scratch registers of estimateUnion, reused by every call (a query estimates up to 1,000 cells;
// a sketch object per cell cost 4 KiB each and its garbage collection).
const scratch = new Uint8Array(M);
const touched = new Uint16Array(M);

/**
 * The estimate of the union of encoded sketches, as merging them into one sketch would give, in
 * registers shared across calls and cleared after each.
 */
export function estimateUnion(encodings: readonly Uint8Array[]): number {
  // The running sums stay locals of this function: raised through a closure, they lived in its
  // context, where every update of a double allocates a number (about 5 KB per estimated cell, a
  // third of what an insight query allocated; issue 24).
  let sum = M;
  let zeros = M;
  let count = 0;
  try {
    for (const bytes of encodings) {
      if (bytes[0] === DENSE && bytes.length === M + 1) {
        for (let index = 0; index < M; index++) {
          const rank = bytes[index + 1]!;
          const current = scratch[index]!;
          if (current >= rank) continue;
          if (current === 0) {
            touched[count++] = index;
            zeros--;
          }
          sum += INVERSE_POWERS[rank]! - INVERSE_POWERS[current]!;
          scratch[index] = rank;
        }
      } else if (bytes[0] === SPARSE && (bytes.length - 1) % 3 === 0) {
        for (let o = 1; o < bytes.length; o += 3) {
          const index = (bytes[o]! << 8) | bytes[o + 1]!;
          const rank = bytes[o + 2]!;
          const current = scratch[index]!;
          if (current >= rank) continue;
          if (current === 0) {
            touched[count++] = index;
            zeros--;
          }
          sum += INVERSE_POWERS[rank]! - INVERSE_POWERS[current]!;
          scratch[index] = rank;
        }
      } else throw new Error('not a subject sketch');
    }
    return estimateFrom(sum, zeros);
  } finally {
    for (let i = 0; i < count; i++) scratch[touched[i]!] = 0;
  }
}

/** The dense encoding of the union of encoded sketches. */
function denseEncoding(encodings: Uint8Array[]): Buffer {
  const sketch = SubjectSketch.forMerging();
  for (const bytes of encodings) sketch.mergeBytes(bytes);
  return sketch.encode();
}

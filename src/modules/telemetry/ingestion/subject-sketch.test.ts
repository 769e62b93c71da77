// The subject sketch (HyperLogLog) the rollups keep per bucket: accuracy, merging and encoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateUnion, SubjectSketch } from './subject-sketch.js';

test('the subject sketch stays within 2 % at sizes from one subject to 100,000, merges and round-trips', () => {
  for (const n of [1, 19, 20, 500, 5_000, 100_000]) {
    const a = new SubjectSketch();
    const b = new SubjectSketch();
    for (let i = 0; i < n; i++) (i % 2 ? a : b).add(`user-${n}-${i}`);
    const merged = SubjectSketch.decode(a.encode());
    merged.mergeBytes(b.encode());
    const error = Math.abs(merged.estimate() - n) / n;
    assert.ok(error <= (n < 5_000 ? 0.02 : 0.03), `n=${n} estimate=${merged.estimate()}`);
    if (n <= 20) assert.equal(Math.round(merged.estimate()), n);
  }
  assert.equal(new SubjectSketch().estimate(), 0);
});

/** The HyperLogLog estimate from a walk over every register of an encoded sketch (the reference
 * for the running sum a dense sketch keeps). */
function estimateByWalk(bytes: Uint8Array): number {
  const m = 4096;
  const registers = new Uint8Array(m);
  if (bytes[0] === 2) registers.set(bytes.subarray(1));
  else
    for (let o = 1; o < bytes.length; o += 3)
      registers[(bytes[o]! << 8) | bytes[o + 1]!] = Math.max(
        registers[(bytes[o]! << 8) | bytes[o + 1]!]!,
        bytes[o + 2]!,
      );
  let sum = 0;
  let zeros = 0;
  for (const r of registers) {
    sum += 2 ** -r;
    if (r === 0) zeros++;
  }
  const raw = ((0.7213 / (1 + 1.079 / m)) * m * m) / sum;
  return raw <= 2.5 * m && zeros > 0 ? m * Math.log(m / zeros) : raw;
}

test('a dense sketch estimates exactly what a walk over its registers gives, however it was built', () => {
  for (const n of [0, 1, 1_500, 3_000, 20_000, 300_000]) {
    const parts = [new SubjectSketch(), new SubjectSketch(), new SubjectSketch()];
    for (let i = 0; i < n; i++) parts[i % 3]!.add(`subject-${n}-${i}`);
    const merged = SubjectSketch.forMerging();
    merged.merge(parts[0]!);
    merged.mergeBytes(parts[1]!.encode());
    merged.mergeBytes(SubjectSketch.decode(parts[2]!.encode()).encode());
    merged.merge(parts[0]!); // merging the same registers again changes nothing
    assert.equal(merged.estimate(), estimateByWalk(merged.encode()), `n=${n}`);
  }
});

test('merging into a stored sketch encodes what decoding, merging and encoding again give', () => {
  const sketchOf = (prefix: string, n: number) => {
    const sketch = new SubjectSketch();
    for (let i = 0; i < n; i++) sketch.add(`${prefix}-${i}`);
    return sketch;
  };
  // Sparse and dense on either side, overlapping subjects, and a union that crosses into dense.
  for (const [stored, added] of [
    [0, 1],
    [1, 1],
    [40, 3],
    [1_300, 80],
    [1_000, 1_000],
    [5_000, 2],
    [3, 5_000],
    [5_000, 5_000],
  ] as const) {
    const storedBytes = sketchOf('s', stored).encode();
    const delta = sketchOf(stored % 2 ? 's' : 'd', added);
    const expected = SubjectSketch.decode(delta.encode());
    expected.mergeBytes(storedBytes);
    assert.deepEqual(delta.encodeMergedWith(storedBytes), expected.encode(), `stored=${stored} added=${added}`);
  }
  assert.throws(() => new SubjectSketch().encodeMergedWith(Buffer.from([1, 0])), /not a subject sketch/);
});

test('the union estimate of stored sketches is what merging them into one sketch gives, call after call', () => {
  const encodings = [0, 1, 40, 1_500, 6_000].map((n, k) => {
    const sketch = new SubjectSketch();
    for (let i = 0; i < n; i++) sketch.add(`u-${k % 2}-${i}`);
    return sketch.encode();
  });
  for (const subset of [[], [encodings[1]!], encodings.slice(0, 3), encodings, [encodings[4]!, encodings[4]!]]) {
    const merged = SubjectSketch.forMerging();
    for (const bytes of subset) merged.mergeBytes(bytes);
    assert.equal(estimateUnion(subset), merged.estimate());
    assert.equal(estimateUnion(subset), merged.estimate(), 'the shared registers are cleared after each call');
  }
  assert.throws(() => estimateUnion([encodings[3]!, Buffer.from([9])]), /not a subject sketch/);
  assert.equal(Math.round(estimateUnion([encodings[1]!])), 1, 'and after a failed call');
});

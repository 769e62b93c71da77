import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getHeapSpaceStatistics } from 'node:v8';
import { holdYoungGeneration } from './startup-heap.js';

const youngGeneration = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

/** Like loading modules: small objects that all survive their first collections, then become garbage. */
function allocateSurvivors() {
  let kept: { i: number; s: string }[] | null = [];
  for (let i = 0; i < 1_000_000; i++) kept.push({ i, s: `x${i}` });
  kept = null;
}

test('while held the young generation does not grow; holds nest; once the last is released it grows again', () => {
  // One test, in this order: the young generation can grow only once (to its maximum).
  const outer = holdYoungGeneration();
  const inner = holdYoungGeneration();
  const held = youngGeneration();
  try {
    allocateSurvivors();
    assert.ok(youngGeneration() <= held, `young generation ${youngGeneration()} bytes while held at ${held}`);
    inner();
    inner(); // a second call of the same release does nothing
    allocateSurvivors();
    assert.ok(youngGeneration() <= held, `still held by the outer hold: ${youngGeneration()} bytes`);
  } finally {
    outer();
  }
  allocateSurvivors();
  assert.ok(youngGeneration() > held, `young generation ${youngGeneration()} bytes after release, ${held} held`);
});

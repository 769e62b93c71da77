import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getHeapSpaceStatistics } from 'node:v8';
import { releaseStartupMemory } from './startup-memory.js';

const youngGeneration = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

test('releasing startup memory shrinks the young generation that surviving allocations grew', async () => {
  // Like loading modules: a million small objects that all survive their first collections make
  // V8 grow the young generation to its maximum; then they become garbage.
  let kept: { i: number; s: string }[] | null = [];
  for (let i = 0; i < 1_000_000; i++) kept.push({ i, s: `x${i}` });
  kept = null;
  const grown = youngGeneration();
  assert.equal(await releaseStartupMemory(), true);
  assert.ok(youngGeneration() < grown, `young generation ${youngGeneration()} bytes after, ${grown} before`);
});

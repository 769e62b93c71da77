import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

// In a process of its own: the test needs a young generation that has not grown yet (test files
// share processes, scripts/run-tests.mjs), and V8 flags are the whole process's.
const SCRIPT = `
import { getHeapSpaceStatistics } from 'node:v8';
import { holdYoungGeneration } from ${JSON.stringify(new URL('./startup-heap.ts', import.meta.url).href)};
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
// Like loading modules: small objects that all survive their first collections, then become garbage.
function allocateSurvivors() {
  let kept = [];
  for (let i = 0; i < 1_000_000; i++) kept.push({ i, s: 'x' + i });
  kept = null;
}
const outer = holdYoungGeneration();
const inner = holdYoungGeneration();
const held = young();
allocateSurvivors();
const whileHeld = young();
inner();
inner(); // a second call of the same release does nothing
allocateSurvivors();
const afterInner = young();
outer();
allocateSurvivors();
console.log(JSON.stringify({ held, whileHeld, afterInner, released: young() }));
`;

test('while held the young generation does not grow; holds nest; once the last is released it grows again', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const sizes = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  assert.ok(sizes.whileHeld! <= sizes.held!, `grew while held: ${JSON.stringify(sizes)}`);
  assert.ok(sizes.afterInner! <= sizes.held!, `grew while the outer hold remained: ${JSON.stringify(sizes)}`);
  assert.ok(sizes.released! > sizes.held!, `did not grow once released: ${JSON.stringify(sizes)}`);
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

// In processes of their own: V8 flags are the whole process's, and test files share processes.
// Each keeps ~30 MiB alive, then promotes garbage in rounds (objects that survive scavenges before
// being dropped, as a burst of loaded documents does) and reports the old generation's largest size
// and how many full collections ran. V8's collector runs on helper threads and on a schedule that
// depends on timing; under --predictable it runs on one thread and the same script gives the same
// figures every time, so the comparison below cannot flap.
const SCRIPT = `
import { getHeapSpaceStatistics } from 'node:v8';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { boundOldGenerationGrowth } from ${JSON.stringify(new URL('./old-generation-growth.ts', import.meta.url).href)};
if (process.argv.includes('bound')) boundOldGenerationGrowth();
const old = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size;
const live = [];
for (let i = 0; i < 400_000; i++) live.push({ i, s: 'live' + i });
let largest = 0;
let full = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
}).observe({ entryTypes: ['gc'] });
for (let round = 0; round < 40; round++) {
  let promoted = [];
  for (let i = 0; i < 100_000; i++) promoted.push({ i, s: 'g' + i });
  for (let k = 0; k < 3; k++) { const churn = []; for (let i = 0; i < 200_000; i++) churn.push({ i }); }
  promoted = null;
  largest = Math.max(largest, old());
}
await new Promise((resolve) => setTimeout(resolve, 20)); // the observer hears the last collections
console.log(JSON.stringify({ largest, full, live: live.length }));
`;

interface Figures {
  largest: number;
  full: number;
}

function oldGeneration(nodeFlags: string[], bound: boolean): Figures {
  const run = spawnSync(
    process.execPath,
    [
      '--predictable',
      ...nodeFlags,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      SCRIPT,
      ...(bound ? ['bound'] : []),
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Figures;
}

test('bounded, the old generation is collected more often and holds less promoted garbage; an operator flag is kept', () => {
  const unbounded = oldGeneration([], false);
  const bounded = oldGeneration([], true);
  const operators = oldGeneration(['--heap-growing-percent=300'], true);
  const shown = (f: Figures) => `${(f.largest / 1048576).toFixed(0)} MiB after ${f.full} full collections`;
  // Measured: 108–112 MiB after 12 bounded, 196–214 MiB after 5 unbounded and with the operator's 300 %.
  assert.ok(
    bounded.largest < unbounded.largest && bounded.full > unbounded.full,
    `bounded ${shown(bounded)}, unbounded ${shown(unbounded)}`,
  );
  assert.ok(
    operators.largest > bounded.largest && operators.full < bounded.full,
    `operator's 300 % ${shown(operators)}, bounded ${shown(bounded)}`,
  );
});

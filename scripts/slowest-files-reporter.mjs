// A node:test reporter that prints nothing while the run goes on and, at its end, the ten slowest test
// files with their times: a file that ran in a process of its own, that process's time from start to
// exit (imports and hooks included); a file that shared a process (run-tests.mjs), the time of its
// tests. Then the time of every process, added up. Last, every failed test again with its file and
// first lines of error: a CI log is often kept only by its tail, and the TAP above is long.
import { relative } from 'node:path';

const SHOWN = 10;
const GROUP_ENTRY = /ensign-test-group-\d+\.mjs$/;

export default async function* slowestFiles(source) {
  const processTimes = new Map();
  const testTimes = new Map();
  let total = 0;
  const failures = [];
  for await (const event of source) {
    if (event.type === 'test:fail' && !isSuiteFailure(event.data)) failures.push(event.data);
    if (event.type !== 'test:complete' || event.data.nesting !== 0 || !event.data.file) continue;
    const { file, name, details } = event.data;
    if (name === file) {
      // The runner reports each process as a test named by the file it was given.
      total += details.duration_ms;
      if (!GROUP_ENTRY.test(file)) processTimes.set(file, details.duration_ms);
    } else {
      testTimes.set(file, (testTimes.get(file) ?? 0) + details.duration_ms);
    }
  }
  const times = new Map(testTimes);
  for (const [file, ms] of processTimes) times.set(file, ms);
  yield* failureSummary(failures);
  if (times.size === 0) return;
  const sorted = [...times].sort((a, b) => b[1] - a[1]);
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
  yield `\nThe ${Math.min(SHOWN, sorted.length)} slowest of ${sorted.length} test files:\n`;
  for (const [file, ms] of sorted.slice(0, SHOWN))
    yield `${seconds(ms)}  ${relative(process.cwd(), file)}${processTimes.has(file) ? ' (a process of its own)' : ''}\n`;
  yield `${seconds(total)}  every test process, added up\n`;
}

/** A suite fails when one of its tests does; the test itself is what the summary lists. */
function isSuiteFailure(data) {
  return data.details?.error?.failureType === 'subtestsFailed';
}

function* failureSummary(failures) {
  if (failures.length === 0) return;
  yield `\n${failures.length} failed:\n`;
  for (const { name, file, line, details } of failures) {
    const where = file ? `${relative(process.cwd(), file)}${line ? `:${line}` : ''}` : '';
    const cause = details?.error?.cause ?? details?.error;
    const message = String(cause?.message ?? cause ?? '')
      .split('\n')
      .slice(0, 12)
      .join('\n    ');
    yield `  ✖ ${name}${where ? `  (${where})` : ''}\n    ${message}\n`;
  }
}

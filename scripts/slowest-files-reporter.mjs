// A node:test reporter that prints nothing while the run goes on and, at its end, the ten slowest test
// files with their times (each file runs in a process of its own: its time is that process's, from
// start to exit, imports and hooks included), and the sum over all files.
import { relative } from 'node:path';

const SHOWN = 10;

export default async function* slowestFiles(source) {
  const times = new Map();
  for await (const event of source) {
    // The runner reports each file's process as a test named by the file's path.
    if (event.type === 'test:complete' && event.data.nesting === 0 && event.data.file && event.data.name === event.data.file) {
      times.set(event.data.file, event.data.details.duration_ms);
    }
  }
  if (times.size === 0) return;
  const sorted = [...times].sort((a, b) => b[1] - a[1]);
  const total = sorted.reduce((sum, [, ms]) => sum + ms, 0);
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
  yield `\nThe ${Math.min(SHOWN, sorted.length)} slowest of ${sorted.length} test files (each file's process, start to exit):\n`;
  for (const [file, ms] of sorted.slice(0, SHOWN)) yield `${seconds(ms)}  ${relative(process.cwd(), file)}\n`;
  yield `${seconds(total)}  all files together\n`;
}

#!/usr/bin/env node
// `npm run checks`: the typecheck and the static checks of `npm test`, after the packages are built
// (several checks read their builds), two at a time, the longest first. Each is one single-threaded
// process, so on CI's two cores running them in pairs takes about half the time of running them in a
// row. The typecheck's second half writes the server's build (dist/), which the tests start. Each one's output is
// printed whole when it ends, under its name; the run fails if any check fails.
import { spawn } from 'node:child_process';

const CHECKS = [
  // In order of their times on CI's machine beside another check (seconds), so the last two end
  // close together (format:check last, as it was, left one core idle for about 30 s).
  // typecheck:src and lint, sharing one TypeScript program (scripts/typecheck-and-lint.mjs): 74.
  'typecheck-and-lint',
  'typecheck:build', // 26
  'format:check', // 24
  'test --workspace console', // 22
  'lint:packages', // 22
  'lint:deps', // 8
  'lint:unused', // 7
];
const PARALLEL = Number(process.env.CHECKS_CONCURRENCY ?? 2);

function run(check) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['run', '--silent', ...check.split(' ')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n> npm run ${check} (${seconds} s, ${code === 0 ? 'ok' : `exit ${code}`})\n${output}`);
      resolve(code === 0);
    });
  });
}

const queue = [...CHECKS];
const results = [];
await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    while (queue.length > 0) {
      const check = queue.shift();
      results.push([check, await run(check)]);
    }
  }),
);
const failed = results.filter(([, ok]) => !ok).map(([check]) => check);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}

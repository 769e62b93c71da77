// The CLI piped into a reader that stops early (`ensign … | head`), through a real shell pipe: the
// write that meets the closed pipe ends the command quietly, without a stack trace.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { ROOT, cliUser } from '../helpers/cli-runner.js';
import { entryArgs } from '../helpers/entry-points.js';
import { startTestServer } from '../helpers/e2e-server.js';
import { call, userWithApp } from '../helpers/fixtures.js';

/** Runs `ensign <args> | head -c 100` under sh with pipefail off: the CLI's stderr and exit status, and what head printed. */
function pipedIntoHead(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ cliStatus: number; cliStderr: string; headOut: string }> {
  const cli = [process.execPath, ...entryArgs('src/cli/main.ts'), ...args]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(' ');
  // The CLI's stderr goes to a descriptor of its own (3), its status is printed after head's output.
  const script = `{ ${cli} 2>&3; echo "status=$?" >&3; } | head -c 100; echo`;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit', 'pipe'] });
    let headOut = '';
    let side = '';
    child.stdout!.on('data', (d) => (headOut += d));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d) => (side += d));
    child.on('error', reject);
    child.on('close', () => {
      const match = /status=(\d+)\n$/.exec(side);
      resolve({ cliStatus: match ? Number(match[1]) : -1, cliStderr: side.replace(/status=\d+\n$/, ''), headOut });
    });
  });
}

test('ensign … | head: no EPIPE stack trace, exit status 0', async (t) => {
  const { app, address, dir } = await startTestServer(t, 'cli-pipe');
  const s = await userWithApp(app);
  // About 200 KB of output: far more than a pipe buffers, so the CLI is still writing when head exits.
  for (let i = 0; i < 40; i++) {
    const res = await call(app, 'PATCH', '/api/v1/flags', {
      token: s.admin,
      payload: {
        appId: s.appId,
        env: 'prod',
        key: `flag-${i}`,
        type: 'bool',
        value: false,
        description: 'd'.repeat(1000),
        metadata: { pad: 'm'.repeat(4000) },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  const { env } = cliUser(address, s.user.token, dir);
  for (const args of [
    ['flags', 'list', '--app', s.appId, '--env', 'prod', '--json'],
    ['flags', 'get', 'flag-1', '--app', s.appId, '--env', 'prod', '--json'],
  ]) {
    const run = await pipedIntoHead(args, env);
    assert.equal(run.headOut.length, 101, 'head printed its 100 bytes');
    assert.equal(run.cliStderr, '', `ensign ${args.join(' ')} wrote to stderr`);
    assert.equal(run.cliStatus, 0);
  }
});

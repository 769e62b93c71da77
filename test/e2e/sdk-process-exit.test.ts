// A Node process that uses the SDK the busy way (the change stream open, a file store, exposures and
// an outcome queued) ends on its own once close() resolves: no process.exit, nothing left holding
// the event loop. Run against a started server, in a child process of its own.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startEnsign } from './openfeature.fixtures.js';
import { ROOT } from '../helpers/child-process.js';
import { waitFor } from '../helpers/polling.js';

const CHILD = `
import { createClient } from '@ensign/sdk';
import { fileStore } from '@ensign/sdk/file-store';
const client = createClient({ url: process.env.ENSIGN_URL, key: process.env.ENSIGN_SDK_KEY, store: fileStore(process.env.STORE_DIR), events: { flushIntervalMs: 60_000 } });
console.log('ready from', await client.ready());
// Until the stream is open: the socket close() must end.
while (!process.getActiveResourcesInfo().some((r) => r === 'TCPSocketWrap')) await new Promise((r) => setTimeout(r, 20));
await new Promise((r) => setTimeout(r, 300));
client.string('checkout', { targetingKey: 'u1', plan: 'beta', country: 'NO' }, 'x');
client.track('purchase', { targetingKey: 'u1' }, 3);
console.log('closing');
// A generous deadline: on a loaded machine the server's first events batch can take seconds, and
// this test is about exiting, not about the deadline (events.test.ts covers that).
await client.close({ timeoutMs: 20_000 });
console.log('closed', JSON.stringify(client.eventStats()));
// Nothing else: the process must now exit by itself.
`;

test('a Node process using the SDK exits on its own after close()', async (t) => {
  const ensign = await startEnsign(t);
  const store = mkdtempSync(join(tmpdir(), 'ensign-exit-'));
  t.after(() => rmSync(store, { recursive: true, force: true }));
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: ROOT,
    env: {
      ...process.env,
      TSX_DISABLE_CACHE: '1',
      ENSIGN_URL: ensign.address,
      ENSIGN_SDK_KEY: ensign.sdk,
      STORE_DIR: store,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(() => /closed /.test(out) || child.exitCode !== null, 60_000);
  // After close() resolved, the process has at most a moment to wind down; 10 s is far more than
  // that and far less than what any leftover (the stream, a poll timer, a socket) would hold it.
  const stillRunning = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await exited;
  clearTimeout(stillRunning);
  assert.equal(code, 0, `the process did not exit on its own after close():\n${out}`);
  assert.match(out, /ready from network/);
  const stats = JSON.parse(out.match(/closed (\{.*\})/)![1]!);
  assert.equal(stats.delivered, 1, `close() flushed the outcome: ${JSON.stringify(stats)}\n${out}`);
  assert.equal(stats.dropped, 0);
});

// End to end: the unmodified OpenFeature web SDK with the OFREP web provider against a started
// Ensign server, in Node. Polling with ETag/304 runs in this process (Node 20 has no global
// EventSource, and no localStorage: the provider's cache is off); the server-sent event path runs
// in a child Node started with --experimental-eventsource, where the provider connects to the
// eventStreams entry of the bulk answer.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ClientProviderEvents, OpenFeature } from '@openfeature/web-sdk';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { startEnsign } from './openfeature.fixtures.js';
import { waitFor } from '../helpers/polling.js';

const ROOT = resolve(import.meta.dirname, '../..');

test('the OpenFeature web SDK evaluates Ensign flags through OFREP, polling with ETags', async (t) => {
  const ensign = await startEnsign(t);
  const exchanges: { ifNoneMatch: string | null; status: number }[] = [];
  const fetchImplementation = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const res = await fetch(request);
    exchanges.push({ ifNoneMatch: request.headers.get('if-none-match'), status: res.status });
    return res;
  };
  const provider = new OFREPWebProvider({
    baseUrl: ensign.ofrepBaseUrl,
    headers: [['Authorization', `Bearer ${ensign.pub}`]],
    pollInterval: 100,
    changeDetection: 'polling',
    cacheMode: 'disabled',
    fetchImplementation,
  });
  await OpenFeature.setContext({ targetingKey: 'user-1' });
  await OpenFeature.setProviderAndWait(provider);
  t.after(() => OpenFeature.close());
  const client = OpenFeature.getClient();

  await t.test('every flag type from one bulk evaluation; hidden and missing flags are not found', () => {
    const bool = client.getBooleanDetails('dark-mode', true);
    assert.equal(bool.value, false);
    assert.equal(bool.reason, 'STATIC');
    assert.equal(client.getStringValue('checkout', 'fallback'), 'classic');
    const limit = client.getNumberDetails('limit', -1);
    assert.ok([10, 20].includes(limit.value));
    assert.equal(limit.reason, 'SPLIT');
    const layout = client.getObjectDetails('layout', { columns: 0 });
    assert.deepEqual(layout.value, layout.variant === 'wide' ? { columns: 3 } : { columns: 1 });
    assert.equal(client.getBooleanDetails('ops-only', false).errorCode, 'FLAG_NOT_FOUND');
    assert.equal(client.getBooleanDetails('no-such-flag', false).errorCode, 'FLAG_NOT_FOUND');
  });

  await t.test('polling sends the ETag back and gets 304 while nothing changes', async () => {
    await waitFor(() => exchanges.filter((e) => e.status === 304).length >= 2, 2000);
    const polled = exchanges.filter((e) => e.status === 304);
    assert.ok(polled.every((e) => e.ifNoneMatch?.startsWith('"')));
  });

  await t.test('a change is picked up by polling and announced as ConfigurationChanged', async () => {
    let changed: string[] | undefined;
    client.addHandler(ClientProviderEvents.ConfigurationChanged, (details) => (changed = details?.flagsChanged));
    await ensign.setFlag({ key: 'dark-mode', value: true });
    const elapsed = await waitFor(() => client.getBooleanValue('dark-mode', false) === true, 2000);
    t.diagnostic(`change seen after ${elapsed} ms`);
    assert.deepEqual(changed, ['dark-mode']);
  });

  await t.test('a new context is evaluated again: targeting, and TARGETING_KEY_MISSING without a key', async () => {
    await OpenFeature.setContext({ targetingKey: 'user-2', plan: 'beta', country: 'NO' });
    assert.equal(client.getStringDetails('checkout', 'fallback').reason, 'TARGETING_MATCH');
    assert.equal(client.getStringValue('checkout', 'fallback'), 'new');
    await OpenFeature.setContext({});
    const keyless = client.getNumberDetails('limit', -1);
    assert.equal(keyless.value, -1);
    assert.equal(keyless.errorCode, 'TARGETING_KEY_MISSING');
    assert.equal(client.getBooleanValue('dark-mode', false), true, 'an empty context is accepted');
  });
});

// The child: the web provider with server-sent events (no polling) prints its value at start and
// after each ConfigurationChanged, and whether its event stream is connected.
const SSE_CHILD = `
import { ClientProviderEvents, OpenFeature } from '@openfeature/web-sdk';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
const provider = new OFREPWebProvider({ baseUrl: process.env.OFREP_BASE_URL, headers: [['X-API-Key', process.env.OFREP_KEY]], pollInterval: 0, cacheMode: 'disabled' });
await OpenFeature.setContext({ targetingKey: 'user-1' });
await OpenFeature.setProviderAndWait(provider);
const client = OpenFeature.getClient();
const report = (what) => console.log(JSON.stringify({ what, value: client.getBooleanValue('dark-mode', false), sse: provider._sseManager?.isConnected === true }));
client.addHandler(ClientProviderEvents.ConfigurationChanged, () => report('changed'));
report('ready');
setTimeout(() => process.exit(0), 10000);
`;

const hasEventSource =
  spawnSync(process.execPath, [
    '--experimental-eventsource',
    '-e',
    'process.exit(typeof EventSource === "function" ? 0 : 1)',
  ]).status === 0;

test(
  'the web provider follows the eventStreams entry: a change arrives as refetchEvaluation',
  { skip: !hasEventSource && 'this Node has no EventSource' },
  async (t) => {
    const ensign = await startEnsign(t);
    await ensign.setFlag({ key: 'dark-mode', value: false });
    const child = spawn(
      process.execPath,
      ['--no-warnings', '--experimental-eventsource', '--input-type=module', '-e', SSE_CHILD],
      {
        cwd: ROOT,
        env: { ...process.env, OFREP_BASE_URL: ensign.ofrepBaseUrl, OFREP_KEY: ensign.pub },
      },
    );
    t.after(() => child.kill());
    const lines: { what: string; value: boolean; sse: boolean }[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) =>
      lines.push(
        ...d
          .toString()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ),
    );
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    await waitFor(() => lines.length > 0, 5000).catch(() => assert.fail(`the child did not start: ${stderr}`));
    assert.deepEqual(lines[0], { what: 'ready', value: false, sse: true });
    await new Promise((r) => setTimeout(r, 300));

    const started = Date.now();
    await ensign.setFlag({ key: 'dark-mode', value: true });
    await waitFor(() => lines.some((l) => l.what === 'changed' && l.value === true), 2000);
    t.diagnostic(`change pushed to the web provider after ${Date.now() - started} ms`);
  },
);

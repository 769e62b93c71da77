// Exposure, decision and outcome events: what is queued, deduplication, batches of at most 100,
// per-item retries with the same ids, whole-batch retries, the bounded queue, and close().
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readFileSync } from 'node:fs';
import { createClient, SDK_VERSION, type ClientOptions } from '@ensign/sdk';
import { accepted, FakeServer, until, vectorsDocument } from './fixtures.js';

const SDK_PACKAGE_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;

// From the conformance vectors: user-2 in NO is assigned to control of exp_cv_main.
const ASSIGNED = { targetingKey: 'user-2', country: 'NO' };

function clientOf(server: FakeServer, events: ClientOptions['events'] = {}, now?: () => number) {
  return createClient({
    url: server.url,
    key: 'sdk_test',
    fetch: server.fetch,
    store: null,
    stream: false,
    bootstrap: server.current,
    events,
    now,
  });
}

describe('@ensign/sdk events', () => {
  test('SDK_VERSION is the package version', () => {
    assert.equal(SDK_VERSION, SDK_PACKAGE_VERSION);
  });

  test('an assigned evaluation queues one exposure per subject, flag, iteration and variant within the window', async (t) => {
    const server = new FakeServer(vectorsDocument());
    let clock = Date.parse('2026-03-01T10:00:00.000Z');
    const client = clientOf(server, { exposureWindowMs: 60_000 }, () => clock);
    t.after(() => client.close());
    for (let i = 0; i < 5; i++) assert.equal(client.string('cv-exp-flag', ASSIGNED, 'x'), 'classic');
    client.string('cv-exp-flag', { targetingKey: 'user-2', country: 'DE' }, 'x'); // not targeted: no exposure
    client.string('cv-exp-flag', { country: 'NO' }, 'x'); // no subject: no exposure
    await client.flush();
    assert.deepEqual(
      server.events.map(({ id: _id, ...e }) => e),
      [
        {
          kind: 'exposure',
          timestamp: '2026-03-01T10:00:00.000Z',
          targetingKey: 'user-2',
          flagKey: 'cv-exp-flag',
          variant: 'control',
          reason: 'SPLIT',
          experimentId: 'exp_cv_main',
          iterationId: 'it_exp_cv_main',
          iterationRevision: 2,
        },
      ],
    );
    assert.match(server.events[0].id, /^[0-9a-f]{32}$/);
    const envelope = server.exchanges.find((e) => e.path === '/api/v1/events/batch')!.body;
    // The version is the package's (src/version.ts is written from package.json by the build).
    assert.deepEqual([envelope.schemaVersion, envelope.sdk], [1, { name: 'ensign-js', version: SDK_PACKAGE_VERSION }]);
    clock += 61_000;
    client.string('cv-exp-flag', ASSIGNED, 'x');
    await client.flush();
    assert.equal(server.events.length, 2, 'exposed again after the window');
  });

  test('track() queues outcomes; decisions are sampled; events: false sends nothing', async (t) => {
    const server = new FakeServer(vectorsDocument());
    const client = clientOf(server, { decisionSampleRate: 1 });
    t.after(() => client.close());
    client.track('revenue', { targetingKey: 'user-2' }, 12.5);
    client.track('signup', { targetingKey: 'user-3' });
    client.track('ignored', {});
    client.boolean('cv-static-bool', { targetingKey: 'user-9' }, false);
    await client.flush();
    const kinds = server.events.map((e) => [e.kind, e.metricKey ?? e.flagKey, e.metricValue]);
    assert.deepEqual(kinds, [
      ['outcome', 'revenue', 12.5],
      ['outcome', 'signup', undefined],
      ['decision', 'cv-static-bool', undefined],
    ]);

    const quiet = new FakeServer(vectorsDocument());
    const off = clientOf(quiet, false);
    off.string('cv-exp-flag', ASSIGNED, 'x');
    off.track('revenue', { targetingKey: 'u' }, 1);
    await off.close();
    assert.equal(quiet.exchanges.filter((e) => e.path === '/api/v1/events/batch').length, 0);
  });

  test('batches of at most 100, sent as soon as one is full', async (t) => {
    const server = new FakeServer(vectorsDocument());
    const client = clientOf(server, { flushIntervalMs: 60_000 });
    t.after(() => client.close());
    for (let i = 0; i < 250; i++) client.track('m', { targetingKey: `u${i}` });
    await until(() => server.events.length === 200, 'two full batches without waiting for the interval');
    await client.flush();
    const sizes = server.exchanges.filter((e) => e.path === '/api/v1/events/batch').map((e) => e.body.events.length);
    assert.deepEqual(sizes, [100, 100, 50]);
    assert.equal(client.eventStats().delivered, 250);
  });

  test('rate-limited items are sent again with the same ids; permanent errors are dropped', async (t) => {
    const server = new FakeServer(vectorsDocument());
    server.eventsAnswers.push((events) => ({
      status: 429,
      headers: { 'retry-after': '0' },
      body: {
        results: events.map((e, index) =>
          index === 0
            ? { index, id: e.id, status: 'accepted' }
            : index === 1
              ? { index, id: e.id, status: 'permanent-error', code: 'validation_error' }
              : { index, id: e.id, status: 'retryable-error', code: 'rate_limited', retryAfterSeconds: 0 },
        ),
      },
    }));
    const client = clientOf(server, { flushIntervalMs: 10 });
    t.after(() => client.close());
    for (let i = 0; i < 4; i++) client.track('m', { targetingKey: `u${i}` });
    await until(() => client.eventStats().delivered === 3, 'the retried items');
    const batches = server.exchanges
      .filter((e) => e.path === '/api/v1/events/batch')
      .map((e) => e.body.events.map((x: { id: string }) => x.id));
    assert.equal(batches.length, 2);
    assert.deepEqual(batches[1], batches[0].slice(2), 'only the retryable items, same ids');
    assert.deepEqual(
      { ...client.eventStats(), queued: 0 },
      { queued: 0, delivered: 3, dropped: 0, rejected: 1, retried: 2 },
    );
  });

  test('a 503 or a network failure retries the whole batch with backoff; 401 stops the queue', async (t) => {
    const server = new FakeServer(vectorsDocument());
    server.eventsAnswers.push(() => ({
      status: 503,
      body: { error: { code: 'service_unavailable' } },
      headers: { 'retry-after': '0' },
    }));
    const client = clientOf(server, { flushIntervalMs: 10 });
    t.after(() => client.close());
    client.track('m', { targetingKey: 'u1' });
    await until(() => client.eventStats().delivered === 1, 'delivered after the 503');
    const ids = server.exchanges.filter((e) => e.path === '/api/v1/events/batch').map((e) => e.body.events[0].id);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], ids[1]);

    server.eventsAnswers.push(() => ({ status: 401, body: { error: { code: 'invalid_credential' } } }));
    const errors: string[] = [];
    client.on('error', ({ error }) => errors.push(error.code));
    client.track('m', { targetingKey: 'u2' });
    await until(() => errors.includes('unauthorized'), 'the refusal');
    client.track('m', { targetingKey: 'u3' });
    await client.flush();
    assert.equal(
      server.exchanges.filter((e) => e.path === '/api/v1/events/batch').length,
      3,
      'nothing sent after a 401',
    );
  });

  test('the queue is bounded: the oldest are dropped and counted; close() flushes within its deadline', async () => {
    const server = new FakeServer(vectorsDocument());
    const client = clientOf(server, { flushIntervalMs: 60_000, maxQueue: 10, batchSize: 100 });
    for (let i = 0; i < 25; i++) client.track('m', { targetingKey: `u${i}` });
    assert.deepEqual([client.eventStats().queued, client.eventStats().dropped], [10, 15]);
    await client.close();
    assert.deepEqual(
      server.events.map((e) => e.targetingKey),
      Array.from({ length: 10 }, (_, i) => `u${i + 15}`),
    );

    const hanging = new FakeServer(vectorsDocument());
    const stuck = createClient({
      url: hanging.url,
      key: 'sdk_test',
      store: null,
      stream: false,
      bootstrap: hanging.current,
      events: {},
      fetch: (input, init) =>
        String(input).endsWith('/events/batch')
          ? new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))))
          : hanging.fetch(input, init),
    });
    stuck.track('m', { targetingKey: 'u' });
    await stuck.close({ timeoutMs: 50 });
    assert.equal(stuck.eventStats().dropped, 1, 'left unsent at the deadline, counted');
  });

  test('1,000 clients created and closed leave the heap flat and no handle behind', async () => {
    const server = new FakeServer(vectorsDocument());
    const cycle = async () => {
      for (let i = 0; i < 500; i++) {
        const client = createClient({
          url: server.url,
          key: 'sdk_test',
          fetch: server.fetch,
          store: null,
          bootstrap: server.current,
          events: {},
        });
        client.string('cv-exp-flag', ASSIGNED, 'x');
        await client.close();
      }
      server.exchanges = [];
    };
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    await cycle();
    gc();
    const heapAfterFirst = process.memoryUsage().heapUsed;
    await cycle();
    gc();
    const growth = process.memoryUsage().heapUsed - heapAfterFirst;
    assert.ok(growth < 8 * 1024 * 1024, `heap grew ${growth} bytes over the second 500 clients`);
    const left = process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'TCPSocketWrap');
    assert.deepEqual(left, [], 'no timer or socket left');
    assert.ok(accepted([]).results.length === 0);
  });
});

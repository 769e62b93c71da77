// The SDK client against a scripted server (an injected fetch): the conformance vectors evaluated
// locally, ready() and its sources, ETags, the change stream and its polling fallback, failures
// that keep the last document, persistence, and close().
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileDocument } from '@ensign/engine/core';
import { conformanceMismatches } from '@ensign/engine/conformance';
import { createClient, EnsignError, type ClientOptions, type DocumentStore } from '@ensign/sdk';
import { fileStore } from '@ensign/sdk/file-store';
import { document, FakeServer, flag, until, vectors, vectorsDocument } from './fixtures.js';

function clientOf(server: FakeServer, options: Partial<ClientOptions> = {}) {
  return createClient({
    url: server.url,
    key: 'sdk_test',
    fetch: server.fetch,
    store: null,
    events: false,
    ...options,
  });
}

/** No document request between a throttled answer and the end of its Retry-After (a lower bound:
 * a loaded machine only makes the retry later). */
function assertRetryAfterHonoured(server: FakeServer, retryAfterMs: number): void {
  const requests = server.exchanges.filter((e) => e.path === '/api/v1/advanced-config');
  const throttled = requests.findIndex((e) => e.scripted === 429 || e.scripted === 503);
  assert.ok(throttled >= 0 && throttled < requests.length - 1, 'a throttled answer and a request after it');
  // 5 ms of slack: Date.now() and the timers' monotonic clock are read at different moments.
  const waited = requests[throttled + 1]!.at - requests[throttled]!.at;
  assert.ok(waited >= retryAfterMs - 5, `asked again after ${waited} ms, Retry-After said ${retryAfterMs}`);
}

function memoryStore(): DocumentStore & { saved: Map<string, string> } {
  const saved = new Map<string, string>();
  return { saved, load: (name) => saved.get(name) ?? null, save: (name, text) => void saved.set(name, text) };
}

describe('@ensign/sdk client', () => {
  test('evaluates every conformance case locally as the vectors say', async (t) => {
    const client = clientOf(new FakeServer(vectorsDocument()), { stream: false });
    t.after(() => client.close());
    assert.equal(await client.ready(), 'network');
    let cases = 0;
    for (const suite of vectors.suites) {
      for (const c of suite.cases) {
        const result = client.evaluate(c.flag, c.context, c.expectedType);
        assert.ok(result);
        assert.deepEqual(conformanceMismatches(c.expect, result), [], `${suite.name} / ${c.name}`);
        cases++;
      }
    }
    assert.ok(cases > 130, `${cases} cases`);
  });

  test('typed methods and detail: value, variant, reason, rule; the default on errors; never throws', async (t) => {
    const doc = document({
      flags: {
        banner: flag('string', 'old', {
          rules: [
            {
              id: 'beta',
              conditions: [{ attribute: 'plan', operator: 'in', values: ['beta'] }],
              serve: { value: 'new' },
            },
          ],
        }),
        limit: flag('number', 10),
        on: flag('bool', true),
        layout: flag('json', { columns: 2 }),
      },
    });
    const client = clientOf(new FakeServer(doc), { bootstrap: doc });
    t.after(() => client.close());
    // Bootstrapped: served at once, before any request is answered.
    assert.equal(client.string('banner', { targetingKey: 'u', plan: 'beta' }, 'x'), 'new');
    assert.equal(await client.ready(), 'bootstrap');
    assert.deepEqual(JSON.parse(JSON.stringify(client.detail('banner', { targetingKey: 'u', plan: 'beta' }, 'x'))), {
      key: 'banner',
      value: 'new',
      reason: 'TARGETING_MATCH',
      ruleId: 'beta',
      fallbackClass: 'none',
    });
    assert.equal(client.detail('banner', {}, 'x').variant, undefined);
    assert.equal(client.number('limit', undefined, 0), 10);
    assert.equal(client.boolean('on', {}, false), true);
    assert.deepEqual(client.json('layout', {}, {}), { columns: 2 });
    const mismatch = client.detail('limit', {}, 'text');
    assert.deepEqual([mismatch.value, mismatch.reason, mismatch.errorCode], ['text', 'ERROR', 'TYPE_MISMATCH']);
    const missing = client.detail('nope', {}, false);
    assert.deepEqual([missing.value, missing.errorCode], [false, 'FLAG_NOT_FOUND']);
    assert.equal(client.boolean('limit', { targetingKey: 'u' }, false), false);
    assert.doesNotThrow(() => client.boolean('on', null as never, false));
  });

  test('before any document: the default with PROVIDER_NOT_READY', (t) => {
    const server = new FakeServer(document({}));
    server.documentAnswers.push({
      status: 503,
      body: { error: { code: 'service_unavailable' } },
      headers: { 'retry-after': '30' },
    });
    const client = clientOf(server);
    t.after(() => client.close());
    const detail = client.detail('x', {}, 7);
    assert.deepEqual([detail.value, detail.reason, detail.errorCode], [7, 'ERROR', 'PROVIDER_NOT_READY']);
  });

  test('ready() rejects: unauthorized (fatal, said once), timeout, closed', async (t) => {
    const refused = new FakeServer(document({}));
    refused.documentAnswers.push({
      status: 401,
      body: { error: { code: 'invalid_credential', message: 'The credential is not valid.' } },
    });
    const fatal: EnsignError[] = [];
    const client = clientOf(refused);
    client.on('fatal', ({ error }) => fatal.push(error));
    await assert.rejects(
      client.ready(),
      (e: EnsignError) =>
        e instanceof EnsignError && e.code === 'unauthorized' && e.fatal && /invalid_credential/.test(e.message),
    );
    assert.equal(client.status, 'fatal');
    assert.equal(fatal.length, 1);
    assert.equal(refused.exchanges.length, 1, 'no retry after a refused key');
    await client.close();

    const down = new FakeServer(document({}));
    const never = createClient({
      url: down.url,
      key: 'pub_x',
      fetch: () => new Promise(() => undefined),
      store: null,
      events: false,
    });
    await assert.rejects(never.ready({ timeoutMs: 20 }), (e: EnsignError) => e.code === 'timeout');
    const closing = never.ready({ timeoutMs: 5000 });
    await never.close();
    await assert.rejects(closing, (e: EnsignError) => e.code === 'closed');
    assert.throws(() => createClient({ url: 'flags.test', key: 'sdk_x' }), TypeError);
    assert.throws(() => createClient({ url: 'https://flags.test', key: 'cli_x' }), /environment key/);
  });

  test('follows the change stream: a change refetches with If-None-Match and says which flags changed', async (t) => {
    const server = new FakeServer(document({ flags: { a: flag('bool', false), b: flag('string', 'x') } }, 1));
    const client = clientOf(server);
    t.after(() => client.close());
    await client.ready();
    await until(() => server.openStreams === 1, 'the stream');
    const changes: { keys: string[]; version: number }[] = [];
    client.on('changed', (c) => changes.push(c));
    server.publish(document({ flags: { a: flag('bool', true), b: flag('string', 'x'), c: flag('number', 1) } }, 2));
    await until(() => changes.length === 1, 'changed');
    assert.deepEqual(changes[0], { keys: ['a', 'c'], version: 2 });
    assert.equal(client.boolean('a', {}, false), true);
    const fetches = server.exchanges.filter((e) => e.path === '/api/v1/advanced-config');
    assert.deepEqual(
      fetches.map((e) => e.ifNoneMatch),
      [null, '"v1"'],
    );
    // No polling while the stream is open: two document requests in all.
    assert.equal(client.version, 2);
  });

  test('without a stream it polls (jittered), with the tag, and a 304 changes nothing', async (t) => {
    const server = new FakeServer(document({ flags: { a: flag('bool', false) } }));
    server.streamAvailable = false;
    const errors: EnsignError[] = [];
    const client = clientOf(server, { pollIntervalMs: 1000 });
    client.on('error', ({ error }) => errors.push(error));
    t.after(() => client.close());
    await client.ready();
    await until(() => errors.some((e) => /change stream is unavailable/.test(e.message)), 'the stream refused');
    await until(() => server.exchanges.filter((e) => e.path === '/api/v1/advanced-config').length >= 2, 'a poll');
    const polls = server.exchanges.filter((e) => e.path === '/api/v1/advanced-config');
    assert.equal(polls[1]!.ifNoneMatch, '"v1"');
  });

  test('429 and 503 keep the last document: stale, Retry-After honoured, fresh again after', async (t) => {
    const server = new FakeServer(document({ flags: { a: flag('bool', true) } }));
    server.streamAvailable = false;
    const client = clientOf(server, { pollIntervalMs: 1000 });
    t.after(() => client.close());
    await client.ready();
    const seen: string[] = [];
    client.on('stale', () => seen.push('stale'));
    client.on('ready', () => seen.push('ready'));
    server.documentAnswers.push({
      status: 429,
      body: { error: { code: 'monthly_config_sync_quota_exceeded' } },
      headers: { 'retry-after': '2' },
    });
    await until(() => seen.length >= 1, 'stale');
    assert.equal(seen[0], 'stale');
    assert.equal(client.boolean('a', {}, false), true, 'the last good document is still served');
    await until(() => seen.length === 2, 'fresh again');
    assert.deepEqual(seen, ['stale', 'ready']);
    assert.equal(client.status, 'ready');
    assertRetryAfterHonoured(server, 2000);
  });

  test('Retry-After holds the change stream too: messages and reconnections wait for it', async (t) => {
    const server = new FakeServer(document({ flags: { a: flag('bool', false) } }, 1));
    const client = clientOf(server);
    t.after(() => client.close());
    await client.ready();
    await until(() => server.openStreams === 1, 'the stream');
    const seen: string[] = [];
    client.on('stale', () => seen.push('stale'));
    client.on('ready', () => seen.push('ready'));
    server.documentAnswers.push({ status: 503, headers: { 'retry-after': '2' } });
    server.publish(document({ flags: { a: flag('bool', true) } }, 2));
    await until(() => seen.length >= 1, 'stale');
    // Announcements during the wait, and the stream dropping, do not ask sooner.
    server.publish(document({ flags: { a: flag('bool', true) } }, 3));
    server.endStreams();
    await until(() => seen.length === 2, 'fresh again');
    assert.deepEqual(seen, ['stale', 'ready']);
    assert.equal(client.version, 3);
    assertRetryAfterHonoured(server, 2000);
    await until(() => server.openStreams === 1, 'the stream again');
  });

  test('persistence: a restart serves the stored document at once, and costs one 304', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'ensign-sdk-store-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const server = new FakeServer(document({ flags: { a: flag('string', 'stored') } }, 4));
    const first = clientOf(server, { store: fileStore(dir), stream: false });
    await first.ready();
    await first.close();
    // The server is down: the persisted copy is served.
    const down = createClient({
      url: server.url,
      key: 'sdk_test',
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
      store: fileStore(dir),
      events: false,
      stream: false,
    });
    assert.equal(await down.ready(), 'persisted');
    assert.equal(down.string('a', {}, 'x'), 'stored');
    await until(() => down.status === 'stale', 'stale while the server is down');
    await down.close();
    // Back up: one request, answered 304.
    server.exchanges = [];
    const again = clientOf(server, { store: fileStore(dir), stream: false });
    await again.ready();
    await until(() => server.exchanges.length === 1, 'the revalidation');
    assert.deepEqual(
      server.exchanges.map((e) => e.ifNoneMatch),
      ['"v4"'],
    );
    await again.close();

    const memory = memoryStore();
    const other = clientOf(server, { store: memory, key: 'pub_other' });
    await other.ready();
    await other.close();
    assert.equal(memory.saved.size, 1);
    assert.ok(![...memory.saved.keys()][0]!.includes('pub_other'), 'the store name does not reveal the key');
  });

  test('a bad document is refused and the last good one kept; a bad bootstrap is reported', async (t) => {
    const server = new FakeServer(document({ flags: { a: flag('bool', true) } }));
    const errors: string[] = [];
    const client = clientOf(server, { bootstrap: '{not json' });
    client.on('error', ({ error }) => errors.push(error.code));
    t.after(() => client.close());
    assert.equal(await client.ready(), 'network');
    await until(() => server.openStreams === 1, 'the stream');
    server.publish({ ...document({}, 2), schemaVersion: 'core/v2' as never });
    await until(() => errors.includes('invalid_document'), 'the refusal');
    assert.equal(client.version, 1);
    assert.equal(client.boolean('a', {}, false), true);
  });

  test('documents are compiled as served (shape checked, values trusted) unless full validation is asked for', async (t) => {
    // Weights summing to 90: the server never serves this (it validates every write).
    const unvalidated = document({
      flags: {
        split: flag('string', 'a', {
          variants: [
            { key: 'x', value: 'x', weight: 40 },
            { key: 'y', value: 'y', weight: 50 },
          ],
        }),
      },
    });
    const server = new FakeServer(document({ flags: { a: flag('bool', true) } }));
    server.documentAnswers.push({ status: 503 });
    const trusting = clientOf(server, { bootstrap: unvalidated, stream: false });
    t.after(() => trusting.close());
    assert.equal(await trusting.ready(), 'bootstrap');
    assert.equal(trusting.detail('split', { targetingKey: 'u' }, '').reason, 'SPLIT');

    const errors: EnsignError[] = [];
    const validating = clientOf(new FakeServer(document({ flags: { a: flag('bool', true) } })), {
      bootstrap: unvalidated,
      compile: compileDocument,
      stream: false,
    });
    validating.on('error', ({ error }) => errors.push(error));
    t.after(() => validating.close());
    assert.equal(await validating.ready(), 'network', 'the refused bootstrap was not served');
    await until(() => errors.length > 0, 'the refusal');
    assert.equal(errors[0]!.code, 'invalid_document');
    assert.match(errors[0]!.message, /bootstrap document was refused.*weight/);

    const malformed = clientOf(new FakeServer(document({ flags: { a: flag('bool', true) } })), {
      bootstrap: document({ flags: { bad: { type: 'bool' } as never } }),
      stream: false,
    });
    const shapeErrors: string[] = [];
    malformed.on('error', ({ error }) => shapeErrors.push(error.message));
    t.after(() => malformed.close());
    assert.equal(await malformed.ready(), 'network');
    await until(() => shapeErrors.length > 0, 'the shape refusal');
    assert.match(shapeErrors[0]!, /flag "bad" is not a served flag/);
  });

  test('close() is idempotent, aborts the stream and leaves no timer or socket', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
    const server = new FakeServer(document({ flags: { a: flag('bool', true) } }));
    const clients = Array.from({ length: 50 }, () => clientOf(server, { events: {} }));
    await Promise.all(clients.map((c) => c.ready()));
    await until(() => server.openStreams === 50, 'streams');
    for (const c of clients) c.track('m', { targetingKey: 'u' });
    await Promise.all(clients.flatMap((c) => [c.close(), c.close()]));
    assert.equal(server.openStreams, 0);
    assert.equal(server.events.length, 50, 'close() flushed the events');
    const after = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
    assert.ok(after <= before, `active resources ${before} → ${after}: ${process.getActiveResourcesInfo().join(', ')}`);
    assert.equal(clients[0]!.boolean('a', {}, false), true, 'evaluation still answers after close');
  });
});

// The OFREP event stream over real HTTP: opened from the bulk answer's eventStreams entry, it sends
// refetchEvaluation within a second of a change, also when the change is made through another
// process on the same database; tokens are checked; revoked keys are refused.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../app.js';
import {
  buildTestApp,
  dialects,
  testConfig,
  type TestContext,
  type TestDatabase,
} from '../../../../test/helpers/test-app.js';
import { changeFlags, flagsFixture, revokeKey } from '../evaluation/evaluation.fixtures.js';
import { bulk, expectOfrepError, OFREP } from './ofrep.fixtures.js';
import { waitFor } from '../../../../test/helpers/polling.js';

interface EventStreamClient {
  status: number;
  headers: Headers;
  /** Resolves with the text received once it matches, or fails after `timeoutMs`. */
  until(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

async function listen(app: FastifyInstance): Promise<string> {
  return app.listen({ host: '127.0.0.1', port: 0 });
}

/** What a browser's EventSource does: GET with Accept: text/event-stream, no credentials. */
async function connect(
  base: string,
  requestUri: string,
  headers: Record<string, string> = {},
): Promise<EventStreamClient> {
  const abort = new AbortController();
  const res = await fetch(base + requestUri, {
    headers: { accept: 'text/event-stream', origin: 'https://shop.example', ...headers },
    signal: abort.signal,
  });
  let text = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const reading = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      /* aborted */
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    async until(pattern, timeoutMs = 1000) {
      await waitFor(() => pattern.test(text), timeoutMs, { intervalMs: 10, what: `${pattern} in the stream` }).catch(
        (err: Error) => assert.fail(`${err.message}; got ${JSON.stringify(text)}`),
      );
      return text;
    },
    close() {
      abort.abort();
      void reading;
    },
  };
}

async function streamUri(app: FastifyInstance, token: string): Promise<string> {
  const res = await bulk(app, { context: {} }, { token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().eventStreams[0].endpoint.requestUri;
}

async function secondProcess(t: TestContext, database: TestDatabase): Promise<FastifyInstance> {
  const handle = database.open();
  const app = await buildApp({
    db: handle.db,
    dbHandle: handle,
    notifyChannel: database.pgSchema,
    config: testConfig(),
  });
  t.after(async () => {
    await app.close();
    await handle.close();
  });
  return app;
}

for (const dialect of dialects) {
  describe(`OFREP event stream on ${dialect}`, () => {
    test('refetchEvaluation within a second of a change, with the new version as etag and id', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listen(test.app);
      const stream = await connect(base, await streamUri(test.app, fx.pub));
      t.after(() => stream.close());
      assert.equal(stream.status, 200);
      assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(stream.headers.get('access-control-allow-origin'), '*');
      // Connected moments after the fixture's writes, it may be told to refetch at once: either way
      // the first id is the current version.
      const version = Number(/id: (\d+)/.exec(await stream.until(/: connected\nid: \d+\n/))![1]);

      const started = Date.now();
      await changeFlags(test, fx, [{ key: 'dark-mode', type: 'bool', value: true, clientEnabled: true }]);
      const text = await stream.until(new RegExp(`"etag":"${version + 1}"`));
      t.diagnostic(`event after ${Date.now() - started} ms`);
      assert.match(
        text,
        new RegExp(
          `id: ${version + 1}\\ndata: \\{"type":"refetchEvaluation","etag":"${version + 1}","lastModified":\\d+\\}\\n\\n`,
        ),
      );
    });

    test('a change made through another process reaches a stream of this one within a second', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const other = await secondProcess(t, test.database);
      const fx = await flagsFixture(test);
      const base = await listen(other);
      const stream = await connect(base, await streamUri(other, fx.sdk));
      t.after(() => stream.close());
      await stream.until(/: connected/);
      await new Promise((r) => setTimeout(r, 1200)); // past the "recent change" window of the fixture's writes
      const started = Date.now();
      await changeFlags(test, fx, [{ key: 'checkout', type: 'string', value: 'changed' }]);
      await stream.until(/refetchEvaluation/, 1000);
      t.diagnostic(`event from the other process after ${Date.now() - started} ms`);
    });

    test('Last-Event-ID behind the current version gets a refetch at once', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listen(test.app);
      const stream = await connect(base, await streamUri(test.app, fx.pub), { 'last-event-id': '1' });
      t.after(() => stream.close());
      await stream.until(/refetchEvaluation/, 500);
    });

    test('401 without a token, with a forged one, and for a revoked key', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test, []);
      const uri = await streamUri(test.app, fx.pub);
      expectOfrepError(await test.app.inject({ method: 'GET', url: `${OFREP}/events` }), 401, 'MISSING_CREDENTIAL');
      const token = decodeURIComponent(uri.split('token=')[1]!);
      const [payload, signature] = token.split('.');
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), envId: 'env_other' }),
      ).toString('base64url');
      for (const bad of [`${forged}.${signature}`, 'garbage', `${payload}.`]) {
        expectOfrepError(
          await test.app.inject({ method: 'GET', url: `${OFREP}/events?token=${encodeURIComponent(bad)}` }),
          401,
          'INVALID_CREDENTIAL',
        );
      }
      await revokeKey(test.app, fx, fx.pub);
      expectOfrepError(await test.app.inject({ method: 'GET', url: uri }), 401, 'INVALID_CREDENTIAL');
    });
  });
}

// The fast lane (src/platform/fast-lane.ts) over real HTTP: every request to the evaluation and OFREP
// routes must get the answer Fastify gives the same request (app.inject never goes through the lane),
// header for header and byte for byte, whichever way the lane takes it: answered, replayed through
// Fastify after reading the body, or left to Fastify from the start.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer } from '../helpers/fixtures.js';
import { buildTestApp, dialects, type TestApp } from '../helpers/test-app.js';
import type { EnvironmentFixture } from '../helpers/delivery-fixtures.js';
import { eventually, flagsFixture, revokeKey, storeInvalidConfig } from '../../src/modules/evaluation/evaluation.fixtures.js';

const EVALUATE = '/api/v1/evaluate';
const BULK = '/api/ofrep/v1/evaluate/flags';
const single = (key: string) => `${BULK}/${key}`;
const CONFIG = '/api/v1/config';
const PUBLIC_CONFIG = '/api/v1/public-config';
const JSON_HEADERS = { 'content-type': 'application/json' };
/** Headers of the connection or the moment, not of the answer. */
const VOLATILE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

type Way = 'served' | 'replayed' | 'framework';

interface Case {
  name: string;
  /** POST unless said. */
  method?: 'GET' | 'HEAD';
  url: string;
  headers: Record<string, string>;
  body: string;
  way: Way;
  status: number;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function normalised(headers: Record<string, unknown>, keepRequestId: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (VOLATILE.has(name) || (name === 'x-request-id' && !keepRequestId)) continue;
    out[name] = String(value);
  }
  return out;
}

async function overHttp(base: string, c: Case): Promise<Answer> {
  const res = await fetch(base + c.url, { method: c.method ?? 'POST', headers: c.headers, body: c.method ? undefined : c.body });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

async function throughFastify(app: FastifyInstance, c: Case): Promise<Answer> {
  const res = await app.inject({ method: c.method ?? 'POST', url: c.url, headers: c.headers, payload: c.method ? undefined : c.body });
  return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.body };
}

/** Sends the case over HTTP and through Fastify and checks they agree, and which way the lane took. */
async function expectSameAnswer(test: TestApp, base: string, c: Case) {
  const { app } = test;
  // Keys are resolved from memory for a second after a lookup: have the case's key looked up first
  // (by a route that takes both environment key types and counts no sync).
  const credential = { authorization: c.headers.authorization, 'x-api-key': c.headers['x-api-key'] };
  await app.inject({ method: 'POST', url: single('checkout'), headers: { ...JSON.parse(JSON.stringify(credential)), ...JSON_HEADERS }, payload: '{"context":{}}' });
  const before = { ...app.fastLane };
  const viaHttp = await overHttp(base, c);
  const after = { ...app.fastLane };
  const viaFastify = await throughFastify(app, c);
  const way: Way = after.served > before.served ? 'served' : after.replayed > before.replayed ? 'replayed' : 'framework';
  assert.equal(way, c.way, `${c.name}: taken the way it should be`);
  assert.equal(viaHttp.status, c.status, `${c.name}: ${viaHttp.body}`);
  assert.equal(viaHttp.status, viaFastify.status, c.name);
  const keepRequestId = 'x-request-id' in c.headers;
  // Error bodies name the request id, which differs between the two requests unless the client set it.
  const bodyOf = (answer: Answer) => (keepRequestId ? answer.body : answer.body.replace(/"requestId":"[^"]*"/, '"requestId":"…"'));
  assert.equal(bodyOf(viaHttp), bodyOf(viaFastify), c.name);
  const httpHeaders = normalised(viaHttp.headers, keepRequestId);
  const fastifyHeaders = normalised(viaFastify.headers, keepRequestId);
  // Each bulk answer counts a sync, so the second of the two has one fewer left.
  if (httpHeaders['x-sync-quota-remaining'] !== undefined && viaHttp.status !== 429) {
    assert.equal(Number(fastifyHeaders['x-sync-quota-remaining']), Number(httpHeaders['x-sync-quota-remaining']) - 1, c.name);
    delete httpHeaders['x-sync-quota-remaining'];
    delete fastifyHeaders['x-sync-quota-remaining'];
  }
  assert.deepEqual(httpHeaders, fastifyHeaders, c.name);
  assert.match(String(viaHttp.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/, `${c.name}: a request id`);
}

/** The app listening on a free port (buildTestApp closes it when the test ends). */
const listening = (test: TestApp) => test.app.listen({ port: 0, host: '127.0.0.1' });

function cases(fx: EnvironmentFixture): Case[] {
  const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
  const pub = { ...bearer(fx.pub), ...JSON_HEADERS };
  const context = { targetingKey: 'user-1', plan: 'beta', country: 'NO' };
  const body = (value: unknown) => JSON.stringify(value);
  return [
    { name: 'evaluate one flag', url: EVALUATE, headers: sdk, body: body({ flagKey: 'checkout', context }), way: 'served', status: 200 },
    { name: 'evaluate listed flags', url: EVALUATE, headers: sdk, body: body({ flagKeys: ['limit', 'banner', 'nope'], context }), way: 'served', status: 200 },
    { name: 'evaluate every flag', url: EVALUATE, headers: sdk, body: body({ context }), way: 'served', status: 200 },
    { name: 'evaluate with a default of another type', url: EVALUATE, headers: sdk, body: body({ flagKey: 'limit', context, defaultValue: 'x' }), way: 'served', status: 200 },
    { name: 'evaluate with an Origin', url: EVALUATE, headers: { ...sdk, origin: 'https://example.com' }, body: body({ flagKey: 'checkout', context }), way: 'served', status: 200 },
    { name: 'evaluate with a request id', url: EVALUATE, headers: { ...sdk, 'x-request-id': 'trace-42' }, body: body({ flagKey: 'checkout', context }), way: 'served', status: 200 },
    { name: 'evaluate with charset', url: EVALUATE, headers: { ...sdk, 'content-type': 'application/json; charset=utf-8' }, body: body({ context }), way: 'served', status: 200 },
    { name: 'evaluate flagKey and flagKeys', url: EVALUATE, headers: sdk, body: body({ flagKey: 'limit', flagKeys: ['limit'], context }), way: 'replayed', status: 400 },
    { name: 'evaluate invalid JSON', url: EVALUATE, headers: sdk, body: '{"context":', way: 'replayed', status: 400 },
    { name: 'evaluate empty body', url: EVALUATE, headers: sdk, body: '', way: 'replayed', status: 400 },
    { name: 'evaluate unknown field', url: EVALUATE, headers: sdk, body: body({ context, extra: 1 }), way: 'replayed', status: 400 },
    { name: 'evaluate too many flagKeys', url: EVALUATE, headers: sdk, body: body({ flagKeys: Array.from({ length: 101 }, (_, i) => `f${i}`), context }), way: 'replayed', status: 400 },
    { name: 'evaluate with a pub_ key', url: EVALUATE, headers: pub, body: body({ context }), way: 'framework', status: 403 },
    { name: 'evaluate with an admin_ key', url: EVALUATE, headers: { ...bearer(fx.admin), ...JSON_HEADERS }, body: body({ context }), way: 'framework', status: 403 },
    { name: 'evaluate without a credential', url: EVALUATE, headers: JSON_HEADERS, body: body({ context }), way: 'framework', status: 401 },
    { name: 'evaluate with an unknown key', url: EVALUATE, headers: { ...bearer(`${fx.sdk}x`), ...JSON_HEADERS }, body: body({ context }), way: 'framework', status: 401 },
    { name: 'evaluate as text (only JSON is read: 415)', url: EVALUATE, headers: { ...bearer(fx.sdk), 'content-type': 'text/plain' }, body: body({ context }), way: 'framework', status: 415 },
    { name: 'evaluate over 64 KiB', url: EVALUATE, headers: sdk, body: body({ context: { ...context, blob: 'x'.repeat(64 * 1024) } }), way: 'framework', status: 413 },
    { name: 'evaluate with a query string', url: `${EVALUATE}?debug=1`, headers: sdk, body: body({ context }), way: 'framework', status: 200 },
    { name: 'evaluate with a prototype key', url: EVALUATE, headers: sdk, body: '{"flagKey":"checkout","context":{"__proto__":{"plan":"beta"},"targetingKey":"u"}}', way: 'served', status: 200 },

    { name: 'OFREP flag', url: single('checkout'), headers: sdk, body: body({ context }), way: 'served', status: 200 },
    { name: 'OFREP flag with X-API-Key', url: single('banner'), headers: { 'x-api-key': fx.pub, ...JSON_HEADERS }, body: body({ context }), way: 'served', status: 200 },
    { name: 'OFREP flag hidden from pub_', url: single('internal'), headers: pub, body: body({ context }), way: 'served', status: 404 },
    { name: 'OFREP missing flag', url: single('nope'), headers: sdk, body: body({ context }), way: 'served', status: 404 },
    { name: 'OFREP flag, percent-encoded key', url: single('dark%2Dmode'), headers: sdk, body: body({ context }), way: 'served', status: 200 },
    { name: 'OFREP flag, bad targetingKey', url: single('checkout'), headers: sdk, body: body({ context: { targetingKey: 7 } }), way: 'served', status: 400 },
    { name: 'OFREP flag, split without a key', url: single('banner'), headers: sdk, body: body({ context: {} }), way: 'served', status: 400 },
    { name: 'OFREP flag, context not an object', url: single('checkout'), headers: sdk, body: body({ context: 'x' }), way: 'replayed', status: 400 },
    { name: 'OFREP flag, key past the router limit', url: single('k'.repeat(600)), headers: sdk, body: body({ context }), way: 'framework', status: 414 },
    { name: 'OFREP flag, bad percent-encoding', url: single('%E0%A4%A'), headers: sdk, body: body({ context }), way: 'framework', status: 400 },
    { name: 'OFREP flag with an admin_ key', url: single('checkout'), headers: { ...bearer(fx.admin), ...JSON_HEADERS }, body: body({ context }), way: 'framework', status: 403 },
    { name: 'OFREP bulk', url: BULK, headers: sdk, body: body({ context }), way: 'served', status: 200 },
    { name: 'OFREP bulk, pub_', url: BULK, headers: pub, body: body({ context }), way: 'served', status: 200 },
    { name: 'OFREP bulk, empty context', url: BULK, headers: pub, body: body({ context: {} }), way: 'served', status: 200 },
    { name: 'OFREP bulk with an Origin', url: BULK, headers: { ...pub, origin: 'https://shop.example' }, body: body({ context }), way: 'served', status: 200 },
    { name: 'OFREP bulk, a later protocol field', url: BULK, headers: sdk, body: body({ context, future: true }), way: 'served', status: 200 },
    { name: 'OFREP bulk after an event', url: `${BULK}?flagConfigEtag=1`, headers: sdk, body: body({ context }), way: 'framework', status: 200 },
    { name: 'OFREP bulk, invalid JSON', url: BULK, headers: sdk, body: '{', way: 'replayed', status: 400 },
    { name: 'OFREP bulk, bad targetingKey', url: BULK, headers: sdk, body: body({ context: { targetingKey: ['a'] } }), way: 'served', status: 400 },

    { name: 'config', method: 'GET', url: CONFIG, headers: bearer(fx.sdk), body: '', way: 'served', status: 200 },
    { name: 'config, JSON declared', method: 'GET', url: CONFIG, headers: sdk, body: '', way: 'served', status: 200 },
    { name: 'config with an Origin', method: 'GET', url: CONFIG, headers: { ...bearer(fx.sdk), origin: 'https://example.com' }, body: '', way: 'served', status: 200 },
    { name: 'config with a query string', method: 'GET', url: `${CONFIG}?x=1`, headers: bearer(fx.sdk), body: '', way: 'framework', status: 200 },
    { name: 'config, HEAD', method: 'HEAD', url: CONFIG, headers: bearer(fx.sdk), body: '', way: 'framework', status: 200 },
    { name: 'config with a pub_ key', method: 'GET', url: CONFIG, headers: bearer(fx.pub), body: '', way: 'framework', status: 401 },
    { name: 'config without a credential', method: 'GET', url: CONFIG, headers: {}, body: '', way: 'framework', status: 401 },
    { name: 'config, trailing slash', method: 'GET', url: `${CONFIG}/`, headers: bearer(fx.sdk), body: '', way: 'framework', status: 404 },
    { name: 'public config', method: 'GET', url: PUBLIC_CONFIG, headers: bearer(fx.pub), body: '', way: 'served', status: 200 },
    { name: 'public config with an Origin', method: 'GET', url: PUBLIC_CONFIG, headers: { ...bearer(fx.pub), origin: 'https://shop.example' }, body: '', way: 'served', status: 200 },
    { name: 'public config, trailing slash', method: 'GET', url: `${PUBLIC_CONFIG}/`, headers: bearer(fx.pub), body: '', way: 'framework', status: 404 },
    { name: 'public config with an sdk_ key', method: 'GET', url: PUBLIC_CONFIG, headers: bearer(fx.sdk), body: '', way: 'framework', status: 401 },
  ];
}

for (const dialect of dialects) {
  describe(`fast lane (${dialect})`, () => {
    test('every evaluation and OFREP request gets the answer Fastify gives it', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      for (const c of cases(fx)) await expectSameAnswer(test, base, c);

      // A bulk answer's ETag held by the client: 304 without a body, from the lane.
      const context = JSON.stringify({ context: { targetingKey: 'user-2' } });
      const first = await overHttp(base, { name: 'bulk', url: BULK, headers: { ...bearer(fx.sdk), ...JSON_HEADERS }, body: context, way: 'served', status: 200 });
      const etag = first.headers.etag!;
      await expectSameAnswer(test, base, { name: 'OFREP bulk, If-None-Match', url: BULK, headers: { ...bearer(fx.sdk), ...JSON_HEADERS, 'if-none-match': etag }, body: context, way: 'served', status: 304 });
      await expectSameAnswer(test, base, { name: 'OFREP bulk, another tag', url: BULK, headers: { ...bearer(fx.sdk), ...JSON_HEADERS, 'if-none-match': '"other"' }, body: context, way: 'served', status: 200 });

      // The legacy document's ETag: 304 from the lane, with no body.
      const config = await overHttp(base, { name: 'config', method: 'GET', url: CONFIG, headers: bearer(fx.sdk), body: '', way: 'served', status: 200 });
      await expectSameAnswer(test, base, { name: 'config, If-None-Match', method: 'GET', url: CONFIG, headers: { ...bearer(fx.sdk), 'if-none-match': config.headers.etag! }, body: '', way: 'served', status: 304 });

      // A configuration that cannot be compiled: 500 from either way.
      await storeInvalidConfig(test, fx);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      await eventually(async () => (await test.app.inject({ method: 'POST', url: EVALUATE, headers: sdk, payload: '{"context":{}}' })).statusCode === 500);
      await expectSameAnswer(test, base, { name: 'evaluate, invalid config', url: EVALUATE, headers: sdk, body: '{"context":{}}', way: 'replayed', status: 500 });
      await expectSameAnswer(test, base, { name: 'OFREP flag, invalid config', url: single('checkout'), headers: sdk, body: '{"context":{}}', way: 'served', status: 500 });
      await expectSameAnswer(test, base, { name: 'OFREP bulk, invalid config', url: BULK, headers: sdk, body: '{"context":{}}', way: 'served', status: 500 });

      // A revoked key: never served, whatever was cached.
      await revokeKey(test.app, fx, fx.sdk);
      await expectSameAnswer(test, base, { name: 'evaluate, revoked key', url: EVALUATE, headers: sdk, body: '{"context":{}}', way: 'framework', status: 401 });
      await expectSameAnswer(test, base, { name: 'OFREP bulk, revoked key', url: BULK, headers: sdk, body: '{"context":{}}', way: 'framework', status: 401 });
    });

    test('past the sync quota the lane hands bulk requests to Fastify, which answers 429', async (t) => {
      const quotas = { configSyncs: 4, apps: 10, flags: 500 };
      const test = await buildTestApp(t, { dialect, config: { quotas: { free: quotas, pro: quotas } } });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const c: Case = { name: 'bulk', url: BULK, headers: { ...bearer(fx.pub), ...JSON_HEADERS }, body: '{"context":{"targetingKey":"q"}}', way: 'served', status: 200 };
      await expectSameAnswer(test, base, c); // syncs 1 and 2
      await expectSameAnswer(test, base, c); // 3 and 4
      await expectSameAnswer(test, base, { ...c, way: 'replayed', status: 429 });
      await expectSameAnswer(test, base, { name: 'public config past the quota', method: 'GET', url: PUBLIC_CONFIG, headers: bearer(fx.pub), body: '', way: 'replayed', status: 429 });
      const refused = await overHttp(base, c);
      assert.match(refused.headers['retry-after']!, /^\d+$/);
      assert.equal(JSON.parse(refused.body).errorCode, 'MONTHLY_CONFIG_SYNC_QUOTA_EXCEEDED');
    });

    test('with request logging at debug, every request goes through Fastify, which logs it', async (t) => {
      const test = await buildTestApp(t, { dialect, captureLogs: true });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      await expectSameAnswer(test, base, { name: 'evaluate', url: EVALUATE, headers: { ...bearer(fx.sdk), ...JSON_HEADERS }, body: '{"context":{}}', way: 'framework', status: 200 });
      assert.match(test.logs(), /"url":"\/api\/v1\/evaluate"/);
    });

    test('keep-alive connections carry answered, replayed and framework requests in turn', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      const bodies = ['{"flagKey":"limit","context":{"targetingKey":"a"}}', '{"context":', '{"context":{}}'];
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) =>
        fetch(base + (i % 3 === 2 ? `${EVALUATE}?x=1` : EVALUATE), { method: 'POST', headers: sdk, body: bodies[i % 3] }).then(async (res) => [res.status, await res.json()] as const)));
      for (const [i, [status, json]] of answers.entries()) {
        if (i % 3 === 1) assert.equal(status, 400);
        else assert.equal(status, 200, JSON.stringify(json));
      }
      assert.ok(test.app.fastLane.served > 0 && test.app.fastLane.replayed > 0);
    });

    test('a client that leaves halfway through its body costs nothing but its connection', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test);
      const base = await listening(test);
      const sdk = { ...bearer(fx.sdk), ...JSON_HEADERS };
      await expectSameAnswer(test, base, { name: 'warm', url: EVALUATE, headers: sdk, body: '{"context":{}}', way: 'served', status: 200 });
      const { port } = new URL(base);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(`POST ${EVALUATE} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${fx.sdk}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"context":`);
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
        socket.on('error', reject);
      });
      const served = test.app.fastLane.served;
      await expectSameAnswer(test, base, { name: 'after the abort', url: EVALUATE, headers: sdk, body: '{"context":{}}', way: 'served', status: 200 });
      assert.equal(test.app.fastLane.served, served + 1);
    });
  });
}

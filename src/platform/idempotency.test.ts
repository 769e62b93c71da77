// Idempotency as one reusable mechanism: key placement (header or body), key format, 24-hour
// retention, the 15-minute replay window of one-time secrets, canonical-body comparison, scoping,
// failures that keep no record, and concurrent duplicates; then the same rules on the real routes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { buildTestApp, createTestDatabase, dialects, type TestContext } from '../../test/helpers/test-app.js';
import {
  call,
  createApp,
  expectError,
  expectValidation,
  HOUR,
  MINUTE,
  signUp,
  uniqueKey,
  userWithApp,
} from '../../test/helpers/fixtures.js';
import type { DialectName } from '../db/dialect.js';
import { registerErrorHandling } from './error-handler.js';
import { AppError } from './errors.js';
import { createIdempotencyService, idempotencyKeyOf, sendStored } from './idempotency.js';
import { registerRequestIds, requestIdOf } from './request-id.js';
import { createSecretBox } from './secret-box.js';
import { registerValidation } from './validation.js';
import { testClock } from '../../test/helpers/clock.js';

const ThingBody = Type.Object(
  {
    name: Type.String(),
    secret: Type.Optional(Type.Boolean()),
    fail: Type.Optional(Type.Boolean()),
    idempotencyKey: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** A bare app with one route per key rule, over the mechanism alone, on a test database. */
async function mechanismApp(t: TestContext, dialect: DialectName) {
  const database = await createTestDatabase(dialect);
  const clock = testClock(Date.parse('2026-03-01T12:00:00.000Z'));
  const service = createIdempotencyService(
    database.handle.db,
    createSecretBox('mechanism-test-secret-0123456789abcdef'),
    clock.now,
  );
  const app = Fastify({ genReqId: requestIdOf }).withTypeProvider<TypeBoxTypeProvider>();
  registerRequestIds(app);
  registerValidation(app);
  registerErrorHandling(app);
  let runs = 0;
  for (const [url, required] of [
    ['/required', true],
    ['/optional', false],
  ] as const) {
    app.post(url, { schema: { body: ThingBody } }, async (request, reply) => {
      const key = idempotencyKeyOf(request, { required, bodyField: 'idempotencyKey' });
      const caller = String(request.headers['x-caller'] ?? 'alice');
      const result = await service.run(
        { scope: `user:${caller}:POST ${url}`, key, request: request.body },
        async () => {
          runs++;
          if (request.body.fail) throw new AppError(409, 'slug_conflict', 'Taken.');
          return {
            statusCode: 201,
            body: { run: runs, name: request.body.name, ...(request.body.secret ? { token: `tok_${runs}` } : {}) },
            containsSecrets: !!request.body.secret,
          };
        },
      );
      return sendStored(reply, result);
    });
  }
  await app.ready();
  t.after(async () => {
    await app.close();
    await database.handle.close();
    await database.drop();
  });
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, payload: payload as object, headers });
  return { app, database, service, clock, post, runs: () => runs };
}

const records = (database: { handle: { db: any } }) =>
  database.handle.db.selectFrom('idempotency_records').selectAll().execute();

for (const dialect of dialects) {
  describe(`idempotency mechanism on ${dialect}`, () => {
    test('the key comes from the header or the body field; both given must be equal', async (t) => {
      const { post, runs } = await mechanismApp(t, dialect);
      const key = uniqueKey();
      const first = await post('/required', { name: 'a' }, { 'idempotency-key': key });
      assert.equal(first.statusCode, 201);
      const replay = await post('/required', { name: 'a' }, { 'idempotency-key': key });
      assert.deepEqual([replay.body, replay.headers['idempotent-replayed']], [first.body, 'true']);
      const bodyKey = uniqueKey();
      const viaBody = await post('/required', { name: 'b', idempotencyKey: bodyKey });
      assert.equal(viaBody.statusCode, 201);
      const both = await post('/required', { name: 'b', idempotencyKey: bodyKey }, { 'idempotency-key': bodyKey });
      assert.deepEqual([both.body, both.headers['idempotent-replayed']], [viaBody.body, 'true']);
      expectValidation(
        await post('/required', { name: 'c', idempotencyKey: uniqueKey() }, { 'idempotency-key': uniqueKey() }),
        '/idempotencyKey',
      );
      assert.equal(runs(), 2);
    });

    test('a missing key is 400 idempotency_key_required where required; a malformed key is 400', async (t) => {
      const { post, runs } = await mechanismApp(t, dialect);
      expectError(await post('/required', { name: 'a' }), 400, 'idempotency_key_required');
      for (const bad of ['short', 'k'.repeat(129), 'with space', 'naïve-key-é', 'tab\there-123']) {
        expectValidation(await post('/required', { name: 'a' }, { 'idempotency-key': bad }), 'headers.idempotency-key');
        expectValidation(await post('/required', { name: 'a', idempotencyKey: bad }), '/idempotencyKey');
      }
      for (const ok of ['12345678', 'k'.repeat(128), '~!@#$%^&*()_+{}|:"<>?']) {
        assert.equal((await post('/required', { name: ok }, { 'idempotency-key': ok })).statusCode, 201);
      }
      assert.equal(runs(), 3);
      // Where the key is optional, requests without one are simply not deduplicated.
      await post('/optional', { name: 'a' });
      await post('/optional', { name: 'a' });
      assert.equal(runs(), 5);
    });

    test('requests compare canonically; another request with the key is 409 idempotency_conflict', async (t) => {
      const { post, runs } = await mechanismApp(t, dialect);
      const key = uniqueKey();
      const first = await post('/required', { name: 'a', secret: false }, { 'idempotency-key': key });
      const reordered = await post('/required', { secret: false, name: 'a' }, { 'idempotency-key': key });
      assert.equal(reordered.body, first.body);
      expectError(
        await post('/required', { name: 'b', secret: false }, { 'idempotency-key': key }),
        409,
        'idempotency_conflict',
      );
      expectError(await post('/required', { name: 'a' }, { 'idempotency-key': key }), 409, 'idempotency_conflict');
      assert.equal(runs(), 1);
    });

    test('records are scoped to principal and route', async (t) => {
      const { post, runs } = await mechanismApp(t, dialect);
      const key = uniqueKey();
      const alice = await post('/required', { name: 'a' }, { 'idempotency-key': key });
      const bob = await post('/required', { name: 'a' }, { 'idempotency-key': key, 'x-caller': 'bob' });
      const otherRoute = await post('/optional', { name: 'a' }, { 'idempotency-key': key });
      assert.deepEqual(
        [alice, bob, otherRoute].map((r) => [r.statusCode, r.headers['idempotent-replayed']]),
        [
          [201, undefined],
          [201, undefined],
          [201, undefined],
        ],
      );
      assert.equal(runs(), 3);
    });

    test('a failed request keeps no record: the key can be used again', async (t) => {
      const { post, database, runs } = await mechanismApp(t, dialect);
      const key = uniqueKey();
      expectError(await post('/required', { name: 'a', fail: true }, { 'idempotency-key': key }), 409, 'slug_conflict');
      assert.equal((await records(database)).length, 0);
      const ok = await post('/required', { name: 'a' }, { 'idempotency-key': key });
      assert.equal(ok.statusCode, 201);
      assert.equal(runs(), 2);
    });

    test('responses with secrets are encrypted at rest and replayable for 15 minutes only', async (t) => {
      const { post, database, clock } = await mechanismApp(t, dialect);
      const key = uniqueKey();
      const first = await post('/required', { name: 'a', secret: true }, { 'idempotency-key': key });
      assert.equal(first.json().token, 'tok_1');
      const [row] = await records(database);
      assert.equal(row.encrypted, 1);
      assert.ok(!row.response_body.includes('tok_1'), 'the stored response is ciphertext');
      assert.equal(Date.parse(row.replay_expires_at) - Date.parse(row.created_at), 15 * MINUTE);
      assert.equal(Date.parse(row.expires_at) - Date.parse(row.created_at), 24 * HOUR);
      clock.advance(15 * MINUTE - 1);
      assert.equal((await post('/required', { name: 'a', secret: true }, { 'idempotency-key': key })).body, first.body);
      clock.advance(1);
      expectError(
        await post('/required', { name: 'a', secret: true }, { 'idempotency-key': key }),
        409,
        'idempotency_replay_expired',
      );
      expectError(
        await post('/required', { name: 'b', secret: true }, { 'idempotency-key': key }),
        409,
        'idempotency_conflict',
      );
    });

    test('records are kept 24 hours, then purged and the key is free again', async (t) => {
      const { post, database, clock, service, runs } = await mechanismApp(t, dialect);
      const key = uniqueKey();
      const first = await post('/required', { name: 'a' }, { 'idempotency-key': key });
      assert.equal((await records(database))[0].encrypted, 0);
      clock.advance(24 * HOUR - 1);
      assert.equal((await post('/required', { name: 'a' }, { 'idempotency-key': key })).body, first.body);
      assert.equal(await service.purgeExpired(), 0);
      clock.advance(1);
      assert.equal(await service.purgeExpired(), 1);
      assert.equal((await records(database)).length, 0);
      const again = await post('/required', { name: 'b' }, { 'idempotency-key': key });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], undefined);
      assert.equal(runs(), 2);
      // An expired record is also ignored (and replaced) before any purge has run.
      clock.advance(24 * HOUR);
      assert.equal((await post('/required', { name: 'c' }, { 'idempotency-key': key })).json().run, 3);
    });

    test('concurrent duplicates run the work once and all get its response', async (t) => {
      const { post, runs } = await mechanismApp(t, dialect);
      const key = uniqueKey();
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => post('/required', { name: 'a', secret: true }, { 'idempotency-key': key })),
      );
      for (const r of responses) assert.equal(r.statusCode, 201, r.body);
      assert.equal(new Set(responses.map((r) => r.body)).size, 1);
      assert.equal(runs(), 1);
    });
  });

  describe(`idempotency on the app and key routes on ${dialect}`, () => {
    test('an app creation replays with its secrets for 15 minutes, then answers 409 idempotency_replay_expired', async (t) => {
      const clock = testClock(Date.now());
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const user = await signUp(app);
      const idem = uniqueKey();
      const create = (payload: unknown) => call(app, 'POST', '/api/v1/apps', { token: user.token, idem, payload });
      const first = await create({ name: 'Shop', slug: 'shop' });
      assert.equal(first.statusCode, 201);
      clock.advance(14 * MINUTE);
      const replay = await create({ name: 'Shop', slug: 'shop' });
      assert.equal(replay.body, first.body);
      assert.ok(replay.json().adminKey.token);
      clock.advance(MINUTE);
      expectError(await create({ name: 'Shop', slug: 'shop' }), 409, 'idempotency_replay_expired');
      expectError(await create({ name: 'Shop 2', slug: 'shop-2' }), 409, 'idempotency_conflict');
      clock.advance(24 * HOUR);
      // The record is gone: the same request is new again, and meets the app it created.
      expectError(await create({ name: 'Shop', slug: 'shop' }), 409, 'slug_conflict');
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: user.token })).json().apps.length, 1);
    });

    test('a key creation is deduplicated for 24 hours; the stored replay holds no plaintext token', async (t) => {
      const clock = testClock(Date.now());
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await userWithApp(app);
      const idem = uniqueKey();
      const payload = { appId: s.appId, env: 'prod', type: 'pub' };
      const first = await call(app, 'POST', '/api/v1/keys', { token: s.user.token, idem, payload });
      const stored = await database.handle.db
        .selectFrom('idempotency_records')
        .selectAll()
        .where('idem_key', '=', idem)
        .execute();
      assert.equal(stored.length, 1);
      assert.equal(stored[0]!.encrypted, 1);
      assert.ok(!stored[0]!.response_body!.includes(first.json().key.token));
      assert.ok(stored[0]!.scope.includes(s.user.userId));
      clock.advance(24 * HOUR + 1);
      const later = await call(app, 'POST', '/api/v1/keys', { token: s.user.token, idem, payload });
      assert.equal(later.statusCode, 201);
      assert.notEqual(later.json().key.id, first.json().key.id);
    });

    test('one key used by two users, or on two routes, makes two independent records', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const idem = uniqueKey();
      const [a, b] = [await signUp(app), await signUp(app)];
      const appA = await call(app, 'POST', '/api/v1/apps', {
        token: a.token,
        idem,
        payload: { name: 'Shop', slug: 'shop' },
      });
      const appB = await call(app, 'POST', '/api/v1/apps', {
        token: b.token,
        idem,
        payload: { name: 'Shop', slug: 'shop' },
      });
      assert.deepEqual([appA.statusCode, appB.statusCode], [201, 201]);
      assert.notEqual(appA.json().app.id, appB.json().app.id);
      const key = await call(app, 'POST', '/api/v1/keys', {
        token: a.token,
        idem,
        payload: { appId: appA.json().app.id, type: 'admin' },
      });
      assert.equal(key.statusCode, 201);
      assert.equal(key.headers['idempotent-replayed'], undefined);
      await createApp(app, a.token);
    });
  });
}

describe('the Idempotency-Key header schema', () => {
  test('every route that takes the header documents one and the same schema', async (t) => {
    const { app } = await buildTestApp(t, { dialect: 'sqlite' });
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          { operationId?: string; parameters?: { in: string; name: string; schema: unknown; description?: string }[] }
        >
      >;
    };
    const found = new Map<string, unknown>();
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        const parameter = operation.parameters?.find((p) => p.in === 'header' && p.name === 'idempotency-key');
        if (parameter)
          found.set(operation.operationId!, { schema: parameter.schema, description: parameter.description });
      }
    }
    for (const operationId of ['createApp', 'createKey'])
      assert.ok(found.has(operationId), `${operationId} takes Idempotency-Key`);
    assert.ok(found.size >= 4, `routes taking Idempotency-Key: ${[...found.keys()].join(', ')}`);
    const [first, ...others] = [...found.values()];
    for (const other of others) assert.deepEqual(other, first);
  });
});

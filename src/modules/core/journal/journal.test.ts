import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import {
  assertContainsNone,
  call,
  createKey,
  expectError,
  expectValidation,
  fingerprintOf,
  userWithApp,
} from '../../../../test/helpers/fixtures.js';

const ENTRY_FIELDS = [
  'afterVersion',
  'appId',
  'authority',
  'beforeVersion',
  'createdAt',
  'diff',
  'env',
  'id',
  'operation',
  'resourceId',
  'resourceType',
  'source',
];
const CLI = { 'x-ensign-source': 'cli' };

/** An app with five journal entries from both kinds of authority and both sources. */
async function history(app: FastifyInstance) {
  const s = await userWithApp(app);
  const pub = await createKey(app, s.user.token, { appId: s.appId, env: 'prod', type: 'pub' }, CLI);
  const sdk = await createKey(app, s.admin, { appId: s.appId, env: 'dev', type: 'sdk' });
  assert.equal(
    (await call(app, 'PATCH', '/api/v1/keys', { token: s.admin, payload: { keyId: pub.id, action: 'revoke' } }))
      .statusCode,
    200,
  );
  assert.equal(
    (await call(app, 'DELETE', `/api/v1/keys?keyId=${sdk.id}`, { token: s.user.token, headers: CLI })).statusCode,
    200,
  );
  await userWithApp(app); // another app's entries never show
  return { ...s, pub, sdk, fingerprint: fingerprintOf(s.admin) };
}

async function changes(app: FastifyInstance, token: string, query: string) {
  const res = await call(app, 'GET', `/api/v1/changes?${query}`, { token });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { changes: any[]; nextCursor: string | null };
}

const ids = (page: { changes: any[] }) => page.changes.map((c) => c.id);

for (const dialect of dialects) {
  describe(`journal on ${dialect}`, () => {
    // Each test makes its own user and app, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('app.create, key.create and key.revoke are recorded newest first with authority and source', async () => {
      const { app } = shared();
      const h = await history(app);
      const { changes: entries, nextCursor } = await changes(app, h.user.token, `appId=${h.appId}`);
      assert.equal(nextCursor, null);
      const user = { type: 'user', userId: h.user.userId };
      const admin = { type: 'admin_key', keyFingerprint: h.fingerprint };
      assert.deepEqual(
        entries.map((e) => [e.operation, e.env, e.source, e.resourceType, e.resourceId, e.authority]),
        [
          ['key.revoke', 'dev', 'cli', 'key', h.sdk.id, user],
          ['key.revoke', 'prod', 'api', 'key', h.pub.id, admin],
          ['key.create', 'dev', 'api', 'key', h.sdk.id, admin],
          ['key.create', 'prod', 'cli', 'key', h.pub.id, user],
          ['app.create', null, 'api', 'app', h.appId, user],
        ],
      );
      assert.match(h.fingerprint, /^[0-9a-f]{16}$/);
      for (const e of entries) {
        assert.deepEqual(Object.keys(e).sort(), ENTRY_FIELDS);
        assert.match(e.id, /^chg_[0-9A-HJKMNP-TV-Z]{26}$/);
        assert.equal(e.appId, h.appId);
        assert.equal(e.beforeVersion, null);
        assert.equal(e.afterVersion, null);
        assert.ok(Array.isArray(e.diff) && e.diff.length > 0);
        assert.match(e.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
      assert.deepEqual(entries[0].diff, [
        { op: 'change', resourceType: 'key', key: h.sdk.id, path: '/status', before: 'active', after: 'revoked' },
      ]);
      assert.deepEqual(ids(await changes(app, h.admin, `appId=${h.appId}`)), ids({ changes: entries }));
    });

    test('every filter narrows the list', async () => {
      const { app } = shared();
      const h = await history(app);
      const all = (await changes(app, h.user.token, `appId=${h.appId}`)).changes;
      const expect = async (query: string, keep: (e: any) => boolean) => {
        const got = ids(await changes(app, h.user.token, `appId=${h.appId}&${query}`));
        assert.deepEqual(
          got,
          all.filter(keep).map((e) => e.id),
          query,
        );
        return got;
      };
      await expect(`id=${all[2].id}`, (e) => e.id === all[2].id);
      for (const env of ['prod', 'production']) await expect(`env=${env}`, (e) => e.env === 'prod');
      await expect('env=development', (e) => e.env === 'dev');
      await expect('operation=key.create', (e) => e.operation === 'key.create');
      await expect('operation=app.create', (e) => e.operation === 'app.create');
      await expect('source=cli', (e) => e.source === 'cli');
      await expect('source=api', (e) => e.source === 'api');
      await expect('resourceType=app', (e) => e.resourceType === 'app');
      await expect(`resourceId=${h.pub.id}`, (e) => e.resourceId === h.pub.id);
      await expect('authorityType=admin_key', (e) => e.authority.type === 'admin_key');
      await expect('authorityType=user', (e) => e.authority.type === 'user');
      await expect('authorityType=system', () => false);
      await expect(`userId=${h.user.userId}`, (e) => e.authority.userId === h.user.userId);
      await expect(`keyFingerprint=${h.fingerprint}`, (e) => e.authority.keyFingerprint === h.fingerprint);
      await expect(
        `operation=key.revoke&authorityType=user&source=cli`,
        (e) => e.operation === 'key.revoke' && e.source === 'cli',
      );
      const mid = all[2].createdAt;
      await expect(`from=${mid}`, (e) => e.createdAt >= mid);
      await expect(`to=${mid}`, (e) => e.createdAt <= mid);
      await expect(`from=${mid}&to=${mid}`, (e) => e.createdAt === mid);
      const shifted = new Date(Date.parse(mid) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      await expect(`from=${encodeURIComponent(shifted)}`, (e) => e.createdAt >= mid);
      await expect(`to=2000-01-01T00:00:00Z`, () => false);
    });

    test('bad queries are 400: limit outside 1..200, unknown enumerations, bad dates and cursors', async () => {
      const { app } = shared();
      const h = await history(app);
      const bad = async (query: string, path?: string) =>
        expectValidation(await call(app, 'GET', `/api/v1/changes?${query}`, { token: h.user.token }), path);
      await bad('', 'querystring.appId');
      for (const limit of ['0', '201', '-1', 'abc', '1.5'])
        await bad(`appId=${h.appId}&limit=${limit}`, 'querystring.limit');
      await bad(`appId=${h.appId}&source=web`, 'querystring.source');
      await bad(`appId=${h.appId}&authorityType=robot`, 'querystring.authorityType');
      await bad(`appId=${h.appId}&keyFingerprint=XYZ`, 'querystring.keyFingerprint');
      await bad(`appId=${h.appId}&from=yesterday`, 'querystring.from');
      await bad(`appId=${h.appId}&to=2026-13-01T00:00:00Z`, 'querystring.to');
      await bad(`appId=${h.appId}&from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
      await bad(`appId=${'a'.repeat(129)}`, 'querystring.appId');
      const forged = `jc2_${Buffer.from(JSON.stringify({ b: 'chg_x' })).toString('base64url')}`;
      for (const cursor of [
        'garbage',
        'jc1_!!!',
        'jc1_',
        forged,
        `jc1_${Buffer.from('{"x":1}').toString('base64url')}`,
      ]) {
        await bad(`appId=${h.appId}&cursor=${encodeURIComponent(cursor)}`, 'querystring.cursor');
      }
      expectError(
        await call(app, 'GET', `/api/v1/changes?appId=${h.appId}&env=qa`, { token: h.user.token }),
        404,
        'not_found',
      );
      for (const limit of [1, 200])
        assert.equal(
          (await changes(app, h.user.token, `appId=${h.appId}&limit=${limit}`)).changes.length,
          Math.min(limit, 5),
        );
    });

    test('cursor pagination walks every entry once, filters included', async () => {
      const { app } = shared();
      const h = await history(app);
      for (let i = 0; i < 4; i++) await createKey(app, h.user.token, { appId: h.appId, env: 'staging', type: 'pub' });
      const all = ids(await changes(app, h.user.token, `appId=${h.appId}`));
      assert.equal(all.length, 9);
      for (const [query, expected] of [
        ['', all],
        ['&operation=key.create', all.filter((_, i) => i < 4 || i === 6 || i === 7)],
      ] as const) {
        const walked: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page = await changes(
            app,
            h.user.token,
            `appId=${h.appId}&limit=2${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          assert.ok(page.changes.length <= 2);
          walked.push(...ids(page));
          cursor = page.nextCursor;
          pages++;
        } while (cursor);
        assert.deepEqual(walked, expected);
        assert.equal(pages, Math.ceil(expected.length / 2));
      }
      const exact = await changes(app, h.user.token, `appId=${h.appId}&limit=9`);
      assert.equal(exact.nextCursor, null);
    });

    test('the database refuses UPDATE and DELETE on the journal', async () => {
      const { app, database } = shared();
      const h = await history(app);
      const db = database.handle.db;
      const before = await db.selectFrom('changes').selectAll().orderBy('id').execute();
      assert.ok(before.length >= 5);
      const attempts = [
        () => sql`UPDATE changes SET source = 'system'`.execute(db),
        () => sql`UPDATE changes SET diff = '[]' WHERE app_id = ${h.appId}`.execute(db),
        () => sql`DELETE FROM changes`.execute(db),
        () => sql`DELETE FROM changes WHERE id = ${before[0]!.id}`.execute(db),
        () => db.updateTable('changes').set({ operation: 'app.delete' }).where('app_id', '=', h.appId).execute(),
        () => db.deleteFrom('changes').where('app_id', '=', h.appId).execute(),
        ...(dialect === 'postgres' ? [() => sql`TRUNCATE changes`.execute(db)] : []),
      ];
      for (const attempt of attempts) await assert.rejects(attempt, /append-only/);
      assert.deepEqual(await db.selectFrom('changes').selectAll().orderBy('id').execute(), before);
    });

    test('no token, token hash or password ever enters the journal', async () => {
      const { app, database } = shared();
      const h = await history(app);
      const db = database.handle.db;
      const secrets = [h.user.token, h.user.password, ...h.tokens, h.pub.token, h.sdk.token];
      const hashes = (await db.selectFrom('api_keys').select('token_hash').execute()).map((r) => r.token_hash);
      const cliHashes = (await db.selectFrom('cli_tokens').select('token_hash').execute()).map((r) => r.token_hash);
      const passwordHashes = (await db.selectFrom('users').select('password_hash').execute()).map((r) =>
        r.password_hash.split('$').pop()!,
      );
      const res = await call(app, 'GET', `/api/v1/changes?appId=${h.appId}`, { token: h.user.token });
      const rows = JSON.stringify(await db.selectFrom('changes').selectAll().execute());
      for (const [text, where] of [
        [res.body, 'the journal response'],
        [rows, 'the journal table'],
      ] as const) {
        assertContainsNone(text, [...secrets, ...hashes, ...cliHashes, ...passwordHashes], where);
        assert.ok(!/"(token|password|secret|tokenHash|token_hash)"/.test(text), `${where} has no secret-named field`);
      }
    });
  });
}

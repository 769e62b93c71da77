import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { createApp, signUp, uniqueKey } from '../../../../test/helpers/fixtures.js';
import { flagsClient, journalOf } from './flags.test-client.js';

async function setup(t: Parameters<typeof buildTestApp>[0], dialect: (typeof dialects)[number]) {
  const { app } = await buildTestApp(t, { dialect });
  const user = await signUp(app);
  const created = await createApp(app, user.token);
  const flags = flagsClient(app, user.token, created.appId);
  for (const [key, type, value] of [
    ['a', 'bool', false],
    ['b', 'string', 'x'],
    ['c', 'number', 1],
  ] as const) {
    assert.equal((await flags.patch({ key, type, value })).statusCode, 200);
  }
  return { app, user, created, flags };
}

for (const dialect of dialects) {
  describe(`bulk apply on ${dialect}`, () => {
    test('values, advanced fields, TTL and privacy in one version and one bulk.apply journal entry', async (t) => {
      const { app, user, created, flags } = await setup(t, dialect);
      const res = await flags.bulk({
        expectedVersion: 3,
        flags: { a: true, b: 'y', c: 1 },
        advanced: {
          flags: { c: { clientEnabled: true, description: 'count' }, b: { metadata: { owner: 'me' } } },
          ttlSeconds: 30,
        },
        privacy: { privateAttributes: ['email', 'email', 'address'], clientMetadataKeys: ['owner'] },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.version, 4);
      assert.match(body.changeId, /^chg_/);
      assert.deepEqual(body.updated, ['a', 'b', 'c']);
      assert.deepEqual(
        { ...body.replay, firstAppliedAt: undefined },
        { idempotencyKey: null, replayed: false, firstAppliedAt: undefined },
      );

      const state = (await flags.versions()).json().current.state;
      assert.equal(state.settings.ttlSeconds, 30);
      assert.deepEqual(state.privacy, { privateAttributes: ['address', 'email'], clientMetadataKeys: ['owner'] });
      assert.equal(state.flags.a.value, true);
      assert.equal(state.flags.c.clientEnabled, true);
      assert.deepEqual(state.flags.b.metadata, { owner: 'me' });

      const [entry] = await journalOf(app, user.token, created.appId, { operation: 'bulk.apply' });
      assert.equal(entry.source, 'bulk');
      assert.equal(entry.resourceType, 'environment');
      assert.deepEqual([entry.beforeVersion, entry.afterVersion], [3, 4]);
      assert.equal(entry.id, body.changeId);
      assert.deepEqual(
        entry.diff.map((d: any) => `${d.resourceType}:${d.key}${d.path}`),
        [
          'flag:a/value',
          'flag:b/metadata',
          'flag:b/value',
          'flag:c/clientEnabled',
          'flag:c/description',
          'privacy:clientMetadataKeys',
          'privacy:privateAttributes',
          'settings:ttlSeconds',
        ],
      );
    });

    test('all or nothing: one bad entry refuses the whole request, naming every problem', async (t) => {
      const { flags } = await setup(t, dialect);
      const unknown = await flags.bulk({ flags: { a: true, ghost: 1 } });
      assert.equal(unknown.statusCode, 400);
      assert.match(unknown.json().error.message, /"ghost"/);
      assert.deepEqual(
        unknown.json().error.details.map((d: any) => d.path),
        ['/flags/ghost'],
      );
      const wrongType = await flags.bulk({
        flags: { a: true, b: 3 },
        advanced: { flags: { c: { rules: [{ id: 'r', conditions: [], serve: { value: 'x' } }] } } },
      });
      assert.equal(wrongType.statusCode, 400);
      assert.deepEqual(
        wrongType
          .json()
          .error.details.map((d: any) => d.path)
          .sort(),
        ['/advanced/flags/c/rules/0/serve/value', '/flags/b'],
      );
      const cycle = await flags.bulk({
        advanced: {
          flags: {
            a: { dependencies: [{ flag: 'b', value: 'x' }] },
            b: { dependencies: [{ flag: 'a', value: true }] },
          },
        },
      });
      assert.equal(cycle.statusCode, 400);
      assert.match(cycle.json().error.details[0].path, /^\/advanced\/flags\/[ab]\/dependencies\/0\/flag$/);
      const lookahead = await flags.bulk({
        advanced: {
          flags: {
            a: {
              rules: [
                {
                  id: 'r',
                  conditions: [{ attribute: 'email', operator: 'matches', values: ['(?!.*@corp)'] }],
                  serve: { value: true },
                },
              ],
            },
          },
        },
      });
      assert.equal(lookahead.statusCode, 400);
      assert.deepEqual(
        lookahead.json().error.details.map((d: any) => d.path),
        ['/advanced/flags/a/rules/0/conditions/0/values/0'],
      );
      assert.match(lookahead.json().error.details[0].message, /lookaround.*linear time/);
      const typeField = await flags.bulk({ advanced: { flags: { a: { type: 'string' } } } });
      assert.equal(typeField.statusCode, 400, 'bulk apply does not change types');
      const extra = await flags.bulk({ flags: { a: true }, mode: 'merge' });
      assert.equal(extra.statusCode, 400);
      assert.equal((await flags.bulk({ advanced: { ttlSeconds: 0 } })).statusCode, 400);
      assert.equal((await flags.bulk({ advanced: { ttlSeconds: 86401 } })).statusCode, 400);
      assert.equal((await flags.list()).json().version, 3, 'nothing was applied');
    });

    test('one request with several kinds of problems lists every one of them', async (t) => {
      const { flags } = await setup(t, dialect);
      const res = await flags.bulk({
        flags: { ghost: 1, b: 3 },
        advanced: {
          flags: {
            phantom: { description: 'x' },
            c: { rules: [{ id: 'r', conditions: [], serve: { value: 'x' } }] },
            a: { dependencies: [{ flag: 'nowhere', value: true }] },
          },
        },
      });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res
          .json()
          .error.details.map((d: any) => d.path)
          .sort(),
        [
          '/advanced/flags/a/dependencies/0/flag',
          '/advanced/flags/c/rules/0/serve/value',
          '/advanced/flags/phantom',
          '/flags/b',
          '/flags/ghost',
        ],
      );
      const cycle = await flags.bulk({
        flags: { ghost: true },
        advanced: {
          flags: {
            a: { dependencies: [{ flag: 'b', value: 'x' }] },
            b: { dependencies: [{ flag: 'a', value: true }] },
          },
        },
      });
      const paths = cycle.json().error.details.map((d: any) => d.path);
      assert.ok(
        paths.includes('/flags/ghost') && paths.some((p: string) => /dependencies\/0\/flag$/.test(p)),
        JSON.stringify(paths),
      );
      assert.equal((await flags.list()).json().version, 3, 'nothing was applied');
    });

    test('idempotent replay: same key and body replay the first answer; another body is 409; a stale expectedVersion is 409', async (t) => {
      const { flags } = await setup(t, dialect);
      const idempotencyKey = uniqueKey();
      const first = await flags.bulk({ idempotencyKey, expectedVersion: 3, flags: { a: true } });
      assert.equal(first.statusCode, 200, first.body);
      const again = await flags.bulk({ idempotencyKey, expectedVersion: 3, flags: { a: true } });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), { ...first.json(), replay: { ...first.json().replay, replayed: true } });
      assert.equal(again.json().replay.idempotencyKey, idempotencyKey);
      // The header form is the same request.
      const header = await flags.bulk(
        { expectedVersion: 3, flags: { a: true } },
        { headers: { 'idempotency-key': idempotencyKey } },
      );
      assert.equal(header.json().version, 4);
      assert.equal(header.json().replay.replayed, true);
      assert.equal((await flags.list()).json().version, 4, 'one version for all three');

      const different = await flags.bulk({ idempotencyKey, flags: { a: false } });
      assert.equal(different.statusCode, 409);
      assert.equal(different.json().error.code, 'idempotency_conflict');
      const disagreeing = await flags.bulk(
        { idempotencyKey, flags: { a: true } },
        { headers: { 'idempotency-key': uniqueKey() } },
      );
      assert.equal(disagreeing.statusCode, 400);

      const stale = await flags.bulk({ idempotencyKey: uniqueKey(), expectedVersion: 3, flags: { a: false } });
      assert.equal(stale.statusCode, 409);
      assert.equal(stale.json().error.code, 'version_conflict');
      assert.deepEqual(stale.json().error.metadata, { currentVersion: 4 });
    });

    test('a bulk apply that changes nothing is a no-op: same version, changeId null, nothing updated', async (t) => {
      const { flags } = await setup(t, dialect);
      const res = await flags.bulk({
        flags: { a: false, b: 'x' },
        advanced: { ttlSeconds: 60 },
        privacy: { privateAttributes: [] },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().version, 3);
      assert.equal(res.json().changeId, null);
      assert.deepEqual(res.json().updated, []);
    });

    test('the older POST form sets values and answers version and updated', async (t) => {
      const { app, user, created, flags } = await setup(t, dialect);
      const res = await flags.bulk({ flags: { a: true, c: 1 } }, { method: 'POST' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { version: 4, updated: ['a'] });
      assert.equal(
        (await flags.bulk({ flags: { a: true }, advanced: { ttlSeconds: 5 } }, { method: 'POST' })).statusCode,
        400,
      );
      assert.equal((await flags.bulk({ flags: { nope: true } }, { method: 'POST' })).statusCode, 400);
      const admin = flagsClient(app, created.admin, created.appId);
      assert.equal((await admin.bulk({ flags: { a: false } }, { method: 'POST' })).json().version, 5);
      assert.equal(
        (await flags.bulk({ flags: { a: true } }, { method: 'POST', token: created.sdk.dev! })).statusCode,
        401,
      );
      const other = await signUp(app);
      assert.equal((await flags.bulk({ flags: { a: true } }, { method: 'POST', token: other.token })).statusCode, 403);
      assert.equal((await flags.bulk({ flags: { a: true } }, { token: other.token })).statusCode, 403);
      assert.equal((await flagsClient(app, user.token, 'app_missing').bulk({ flags: { a: true } })).statusCode, 404);
    });
  });
}

// GET /api/v1/flags with q, limit and cursor: server-side search and paging (the console lists
// thousands of flags with it); without them the answer keeps its older shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { bearer, createApp, signUp } from '../../../../test/helpers/fixtures.js';
import { flagsClient } from './flags.test-client.js';

for (const dialect of dialects) {
  describe(`flag search and paging on ${dialect}`, () => {
    test('q matches key or description ignoring case; limit and cursor walk every match once, in key order', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const created = await createApp(app, user.token);
      const flags = flagsClient(app, user.token, created.appId);
      const keys = ['alpha', 'Beta-checkout', 'checkout.v2', 'delta', 'echo', 'foxtrot', 'golf'];
      for (const key of keys) {
        const res = await flags.patch({
          key,
          type: 'bool',
          value: false,
          description: key === 'golf' ? 'New CHECKOUT flow' : '',
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      const list = (query: Record<string, string | number>) =>
        app.inject({
          method: 'GET',
          url: `/api/v1/flags?${new URLSearchParams({ appId: created.appId, env: 'dev', ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) })}`,
          headers: bearer(user.token),
        });

      const plain = await flags.list();
      assert.deepEqual(Object.keys(plain.json()).sort(), ['flags', 'version'], 'no search, no paging: the older shape');
      assert.equal(plain.json().flags.length, 7);

      const found = await list({ q: 'checkout' });
      assert.equal(found.statusCode, 200, found.body);
      assert.deepEqual(
        found.json().flags.map((f: any) => f.key),
        ['Beta-checkout', 'checkout.v2', 'golf'],
      );
      assert.equal(found.json().total, 3);
      assert.equal(found.json().nextCursor, null);
      assert.equal(found.json().version, 7);

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: any = await list({ limit: 3, ...(cursor ? { cursor } : {}) });
        assert.equal(page.statusCode, 200, page.body);
        assert.equal(page.json().total, 7);
        assert.ok(page.json().flags.length <= 3);
        seen.push(...page.json().flags.map((f: any) => f.key));
        cursor = page.json().nextCursor;
        pages++;
      } while (cursor !== null);
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...keys].sort(), 'every flag once, sorted by key');

      const first = await list({ q: 'CHECKOUT', limit: 2 });
      assert.deepEqual(
        first.json().flags.map((f: any) => f.key),
        ['Beta-checkout', 'checkout.v2'],
      );
      // A flag added between pages lands where its key sorts; the cursor keeps its position.
      await flags.patch({ key: 'checkout.a', type: 'bool', value: true });
      const second = await list({ q: 'CHECKOUT', limit: 2, cursor: first.json().nextCursor });
      assert.deepEqual(
        second.json().flags.map((f: any) => f.key),
        ['golf'],
      );
      assert.equal(second.json().total, 4);
      assert.equal(second.json().nextCursor, null);

      const none = await list({ q: 'zzz' });
      assert.deepEqual(
        { ...(none.json() as object), version: 0 },
        { flags: [], version: 0, total: 0, nextCursor: null },
      );
    });

    test('a damaged cursor, a cursor of another search, and bad limits or q are 400', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const created = await createApp(app, user.token);
      const flags = flagsClient(app, user.token, created.appId);
      for (const key of ['a1', 'a2', 'a3']) await flags.patch({ key, type: 'bool', value: false });
      const get = (qs: string) =>
        app.inject({
          method: 'GET',
          url: `/api/v1/flags?appId=${created.appId}&env=dev&${qs}`,
          headers: bearer(user.token),
        });
      const page = await get('q=a&limit=1');
      const cursor = page.json().nextCursor as string;
      assert.match(cursor, /^fl1_/);

      const other = await get(`q=a2&cursor=${cursor}`);
      assert.equal(other.statusCode, 400);
      assert.equal(other.json().error.code, 'validation_error');
      assert.equal(other.json().error.details[0].path, 'querystring.cursor');
      const damaged = await get('cursor=fl1_bm90LWpzb24');
      assert.equal(damaged.statusCode, 400);
      assert.equal(damaged.json().error.details[0].path, 'querystring.cursor');
      assert.equal((await get('cursor=somebody-elses')).statusCode, 400);
      assert.equal((await get('limit=0')).statusCode, 400);
      assert.equal((await get('limit=501')).statusCode, 400);
      assert.equal((await get('limit=two')).statusCode, 400);
      assert.equal((await get('q=')).statusCode, 400);
      assert.equal((await get(`q=${'x'.repeat(129)}`)).statusCode, 400);
      const viewerless = await app.inject({
        method: 'GET',
        url: `/api/v1/flags?appId=${created.appId}&env=dev&q=a`,
        headers: bearer((await signUp(app)).token),
      });
      assert.equal(viewerless.statusCode, 403, 'search reads under the same permission as the list');
    });
  });
}

// Issue 18, CONTRACT.md §8: adding a member is an invitation. The owner's answer is the same for an
// address with or without an account; membership starts when the invitee accepts; invitations
// expire after 7 days, can be revoked, renewed by a second invite, and are found only by their invitee.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import {
  call,
  expectError,
  expectValidation,
  insertCliToken,
  signUp,
  uniqueKey,
  userWithApp,
} from '../../../../test/helpers/fixtures.js';
import { journalOf } from '../flags/flags.test-client.js';
import { testClock } from '../../../../test/helpers/clock.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

function client(app: FastifyInstance, appId: string) {
  return {
    invite: (token: string, email: string, role = 'viewer', idem?: string) =>
      call(app, 'POST', `/api/v1/apps/${appId}/members`, {
        token,
        payload: { email, role },
        ...(idem ? { idem } : {}),
      }),
    listForApp: (token: string) => call(app, 'GET', `/api/v1/apps/${appId}/invitations`, { token }),
    revoke: (token: string, id: string) => call(app, 'DELETE', `/api/v1/apps/${appId}/invitations/${id}`, { token }),
    mine: (token: string) => call(app, 'GET', '/api/v1/invitations', { token }),
    accept: (token: string, id: string) => call(app, 'POST', `/api/v1/invitations/${id}/accept`, { token }),
    decline: (token: string, id: string) => call(app, 'POST', `/api/v1/invitations/${id}/decline`, { token }),
    members: (token: string) => call(app, 'GET', `/api/v1/apps/${appId}/members`, { token }),
  };
}

for (const dialect of dialects) {
  describe(`invitations on ${dialect}`, () => {
    test('the same 202 for an address with and without an account; membership starts on acceptance; journaled without addresses', async (t) => {
      const clock = testClock(T0);
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const owner = await userWithApp(app);
      const known = await signUp(app, 'known@example.com');
      const c = client(app, owner.appId);

      const answers = [];
      for (const email of ['known@example.com', 'Nobody@Example.com']) {
        const res = await c.invite(owner.user.token, email);
        assert.equal(res.statusCode, 202, res.body);
        answers.push(res);
      }
      for (const res of answers) {
        assert.deepEqual(Object.keys(res.json()), ['invitation']);
        const invitation = res.json().invitation;
        assert.deepEqual(Object.keys(invitation).sort(), ['appId', 'createdAt', 'expiresAt', 'id', 'role']);
        assert.match(invitation.id, /^inv_/);
        assert.deepEqual(
          [invitation.appId, invitation.role, invitation.createdAt, invitation.expiresAt],
          [owner.appId, 'viewer', new Date(T0).toISOString(), new Date(T0 + 7 * DAY).toISOString()],
        );
        assert.ok(!res.body.toLowerCase().includes('example.com'), 'the answer does not echo the address');
        assert.deepEqual(
          Object.keys(res.headers)
            .filter((h) => h !== 'x-request-id' && h !== 'date')
            .sort(),
          ['connection', 'content-length', 'content-type'],
        );
      }
      assert.equal(answers[0]!.body.length, answers[1]!.body.length, 'the bodies differ only by id');

      // Not a member until accepted.
      expectError(await c.members(known.token), 403, 'forbidden');
      const mine = (await c.mine(known.token)).json().invitations;
      assert.deepEqual(
        mine.map((i: any) => [i.id, i.appId, i.appName, i.role]),
        [[answers[0]!.json().invitation.id, owner.appId, owner.body.app.name, 'viewer']],
      );
      const accepted = await c.accept(known.token, mine[0].id);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.deepEqual(
        [accepted.json().appId, accepted.json().member.userId, accepted.json().member.role],
        [owner.appId, known.userId, 'viewer'],
      );
      assert.equal((await c.members(known.token)).statusCode, 200);
      assert.deepEqual(
        (await call(app, 'GET', '/api/v1/apps', { token: known.token })).json().apps.map((a: any) => [a.id, a.role]),
        [[owner.appId, 'viewer']],
      );
      assert.deepEqual((await c.mine(known.token)).json().invitations, []);

      // The unknown address signs up later and finds its invitation (addresses are compared lower-cased).
      const later = await signUp(app, 'nobody@example.com');
      const waiting = (await c.mine(later.token)).json().invitations;
      assert.deepEqual(
        waiting.map((i: any) => i.id),
        [answers[1]!.json().invitation.id],
      );

      const journal = await journalOf(app, owner.user.token, owner.appId, {});
      const entries = journal
        .filter((e) => e.operation.startsWith('member.'))
        .map((e) => [e.operation, e.resourceType, e.resourceId, e.authority.userId])
        .reverse();
      assert.deepEqual(entries, [
        ['member.invite', 'invitation', answers[0]!.json().invitation.id, owner.user.userId],
        ['member.invite', 'invitation', answers[1]!.json().invitation.id, owner.user.userId],
        ['member.join', 'member', known.userId, known.userId],
      ]);
      assert.ok(!JSON.stringify(journal).toLowerCase().includes('example.com'), 'the journal names no address');
    });

    test('an invitation is found only by its invitee: another user, a second accept, a declined or revoked one is 404', async (t) => {
      const clock = testClock(T0);
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const owner = await userWithApp(app);
      const bob = await signUp(app);
      const eve = await signUp(app);
      const c = client(app, owner.appId);
      const id = (await c.invite(owner.user.token, bob.email, 'editor')).json().invitation.id;

      assert.deepEqual((await c.mine(eve.token)).json().invitations, []);
      expectError(await c.accept(eve.token, id), 404, 'not_found');
      expectError(await c.decline(eve.token, id), 404, 'not_found');
      expectError(await c.accept(owner.user.token, id), 404, 'not_found');
      expectError(await c.accept(bob.token, 'inv_missing'), 404, 'not_found');
      expectValidation(await c.accept(bob.token, 'x'.repeat(129)), 'params.invitationId');

      assert.equal((await c.accept(bob.token, id)).statusCode, 200);
      expectError(await c.accept(bob.token, id), 404, 'not_found');
      expectError(await c.decline(bob.token, id), 404, 'not_found');
      expectError(await c.revoke(owner.user.token, id), 404, 'not_found');

      // Declined: journaled, gone from both lists, cannot be accepted afterwards.
      const second = (await c.invite(owner.user.token, eve.email)).json().invitation.id;
      const declined = await c.decline(eve.token, second);
      assert.equal(declined.statusCode, 204, declined.body);
      expectError(await c.accept(eve.token, second), 404, 'not_found');
      assert.deepEqual((await c.listForApp(owner.user.token)).json().invitations, []);
      expectError(await c.members(eve.token), 403, 'forbidden');
      const ops = (await journalOf(app, owner.user.token, owner.appId, { resourceType: 'invitation' })).map((e) => [
        e.operation,
        e.resourceId,
        e.authority.userId,
      ]);
      assert.deepEqual(ops[0], ['member.decline', second, eve.userId]);
    });

    test('invitations expire after 7 days (the injected clock); a second invite renews one (same id, new role, 7 more days)', async (t) => {
      const clock = testClock(T0);
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const owner = await userWithApp(app);
      const bob = await signUp(app);
      const carol = await signUp(app);
      const c = client(app, owner.appId);
      const first = (await c.invite(owner.user.token, bob.email, 'viewer')).json().invitation;
      const forCarol = (await c.invite(owner.user.token, carol.email, 'editor')).json().invitation;

      // The last millisecond of the 7 days: still open.
      clock.set(T0 + 7 * DAY - 1);
      assert.equal((await c.mine(carol.token)).json().invitations.length, 1);
      assert.equal((await c.accept(carol.token, forCarol.id)).json().member.role, 'editor');

      clock.set(T0 + 7 * DAY);
      assert.deepEqual((await c.mine(bob.token)).json().invitations, [], 'an expired invitation is not listed');
      assert.deepEqual((await c.listForApp(owner.user.token)).json().invitations, []);
      expectError(await c.accept(bob.token, first.id), 409, 'invitation_expired');
      expectError(await c.members(bob.token), 403, 'forbidden');

      // Inviting again renews the same invitation.
      clock.set(T0 + 8 * DAY);
      const renewed = await c.invite(owner.user.token, bob.email, 'editor');
      assert.equal(renewed.statusCode, 202, renewed.body);
      assert.deepEqual(renewed.json().invitation, {
        id: first.id,
        appId: owner.appId,
        role: 'editor',
        createdAt: new Date(T0 + 8 * DAY).toISOString(),
        expiresAt: new Date(T0 + 15 * DAY).toISOString(),
      });
      const listed = (await c.listForApp(owner.user.token)).json().invitations;
      assert.deepEqual(
        listed.map((i: any) => [i.id, i.email, i.role, i.invitedBy]),
        [[first.id, bob.email, 'editor', owner.user.userId]],
      );
      assert.equal((await c.accept(bob.token, first.id)).json().member.role, 'editor');
      const journal = await journalOf(app, owner.user.token, owner.appId, { resourceType: 'invitation' });
      assert.deepEqual(journal[0]!.diff, [
        {
          op: 'change',
          resourceType: 'invitation',
          key: first.id,
          path: '',
          before: { role: 'viewer', expiresAt: first.expiresAt },
          after: { role: 'editor', expiresAt: new Date(T0 + 15 * DAY).toISOString() },
        },
      ]);

      // A member is not invited again.
      expectError(await c.invite(owner.user.token, bob.email, 'viewer'), 409, 'member_exists');
    });

    test('owners list and revoke invitations; everyone else is refused; the invitee side needs a full login token', async (t) => {
      const clock = testClock(T0);
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const owner = await userWithApp(app);
      const other = await userWithApp(app);
      const bob = await signUp(app);
      const editor = await signUp(app);
      const c = client(app, owner.appId);
      const invitedEditor = (await c.invite(owner.user.token, editor.email, 'editor')).json().invitation.id;
      assert.equal((await c.accept(editor.token, invitedEditor)).statusCode, 200);

      const key = uniqueKey();
      const first = await c.invite(owner.user.token, bob.email, 'viewer', key);
      const replay = await c.invite(owner.user.token, bob.email, 'viewer', key);
      assert.deepEqual(
        [replay.statusCode, replay.body, replay.headers['idempotent-replayed']],
        [202, first.body, 'true'],
      );
      const id = first.json().invitation.id;

      for (const token of [editor.token, owner.admin, other.user.token, bob.token]) {
        expectError(await c.listForApp(token), 403, 'forbidden');
        expectError(await c.revoke(token, id), 403, 'forbidden');
        expectError(await c.invite(token, 'x@example.com'), 403, 'forbidden');
      }
      expectError(await client(app, 'app_missing').listForApp(owner.user.token), 404, 'not_found');
      expectError(await c.revoke(owner.user.token, 'inv_missing'), 404, 'not_found');
      const elsewhere = (await client(app, other.appId).invite(other.user.token, bob.email)).json().invitation.id;
      expectError(await c.revoke(owner.user.token, elsewhere), 404, 'not_found');

      assert.equal((await c.revoke(owner.user.token, id)).statusCode, 204);
      expectError(await c.revoke(owner.user.token, id), 404, 'not_found');
      expectError(await c.accept(bob.token, id), 404, 'not_found');
      assert.deepEqual(
        (await c.mine(bob.token)).json().invitations.map((i: any) => i.id),
        [elsewhere],
      );
      const revoked = await journalOf(app, owner.user.token, owner.appId, { operation: 'invitation.revoke' });
      assert.deepEqual(
        revoked.map((e) => [e.resourceId, e.authority.userId]),
        [[id, owner.user.userId]],
      );

      // The invitee routes are for a person with a full login token.
      expectError(await c.mine(owner.admin), 401, 'unauthorized');
      expectError(await c.mine(owner.sdk.prod!), 401, 'unauthorized');
      const scoped = await insertCliToken(database.handle.db, bob.userId, { scope: ['read'] });
      // As on the routes that list or create apps: 401, a login token is needed.
      expectError(await c.mine(scoped), 401, 'unauthorized');
      expectError(await c.accept(scoped, elsewhere), 401, 'unauthorized');
      expectError(await call(app, 'GET', '/api/v1/invitations'), 401, 'unauthorized');
    });

    test('every invitation route is in the OpenAPI document with its schemas', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const doc = (await call(app, 'GET', '/openapi.json')).json();
      const routes: [string, string, string][] = [
        ['post', '/api/v1/apps/{appId}/members', '202'],
        ['get', '/api/v1/apps/{appId}/invitations', '200'],
        ['delete', '/api/v1/apps/{appId}/invitations/{invitationId}', '204'],
        ['get', '/api/v1/invitations', '200'],
        ['post', '/api/v1/invitations/{invitationId}/accept', '200'],
        ['post', '/api/v1/invitations/{invitationId}/decline', '204'],
      ];
      for (const [method, path, status] of routes) {
        const op = doc.paths[path]?.[method];
        assert.ok(op?.operationId && op.tags?.length, `${method} ${path} documented with operationId and tags`);
        assert.ok(op.responses[status], `${method} ${path} answers ${status}`);
        assert.ok(op.responses['401'] && op.responses['403'], `${method} ${path} documents its errors`);
      }
      assert.deepEqual(
        Object.keys(
          doc.paths['/api/v1/apps/{appId}/members'].post.responses['202'].content['application/json'].schema.properties
            .invitation.properties,
        ).sort(),
        ['appId', 'createdAt', 'expiresAt', 'id', 'role'],
      );
    });
  });
}

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { buildApp } from '../../../app.js';
import { buildTestApp, createTestDatabase, dialects, testConfig } from '../../../../test/helpers/test-app.js';
import { addMember, call, expectError, expectValidation, signUp } from '../../../../test/helpers/fixtures.js';
import { flagsClient, journalOf } from '../flags/flags.test-client.js';
import { authorityClient, twoPeople } from './authority.test-client.js';
import { testClock } from '../../../../test/helpers/clock.js';

for (const dialect of dialects) {
  describe(`authority workflow on ${dialect}`, () => {
    test('four eyes on a protected prod: refused directly, proposed by one, approved by the other, executed once, read back', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await twoPeople(app);
      const prod = flagsClient(app, s.alice.token, s.appId, 'prod');
      await prod.patch({ key: 'checkout', type: 'bool', value: false });
      const au = authorityClient(app, s.appId);
      assert.equal((await au.protect(s.alice.token, 1)).statusCode, 200);
      expectError(await prod.patch({ key: 'checkout', op: 'toggle' }), 403, 'approval_required');

      const proposed = await au.propose(s.alice.token, {
        baseVersion: 1,
        change: { kind: 'flag.patch', body: { key: 'checkout', op: 'toggle' } },
        reason: 'launch',
      });
      assert.equal(proposed.statusCode, 200, proposed.body);
      const p = proposed.json().proposal;
      assert.match(p.id, /^prp_/);
      assert.deepEqual(
        [p.env, p.baseVersion, p.requiredApprovals, p.reason, p.proposedBy],
        ['prod', 1, 1, 'launch', { type: 'user', userId: s.alice.userId }],
      );
      assert.deepEqual(p.preview, {
        resultVersion: 2,
        changes: [{ op: 'change', resourceType: 'flag', key: 'checkout', path: '/value', before: false, after: true }],
      });
      assert.match(p.digest, /^[0-9a-f]{64}$/);
      assert.equal((await au.show(s.val.token, p.id)).json().status, 'open');

      expectError(await au.execute(s.alice.token, p.id, p.digest), 409, 'approvals_missing');
      expectError(await au.approve(s.alice.token, p.id, p.digest), 403, 'self_approval_forbidden');
      const aliceScoped = (
        await au.mint(s.alice.token, { capabilities: ['approve', 'read'], appIds: [s.appId] })
      ).json().token;
      expectError(await au.approve(aliceScoped, p.id, p.digest), 403, 'self_approval_forbidden');
      expectError(await au.approve(s.admin, p.id, p.digest), 403, 'capability_missing');
      expectError(await au.approve(s.val.token, p.id, p.digest), 403, 'capability_missing');
      expectError(await au.approve(s.bob.token, p.id, 'f'.repeat(64)), 409, 'digest_mismatch');
      const approved = await au.approve(s.bob.token, p.id, p.digest, { comment: 'looks right' });
      assert.equal(approved.statusCode, 200, approved.body);
      const approval = approved.json().approval;
      assert.match(approval.id, /^apv_/);
      assert.deepEqual(
        [approval.proposalId, approval.digest, approval.approvedBy, approval.comment],
        [p.id, p.digest, s.bob.userId, 'looks right'],
      );
      assert.deepEqual(
        (await au.approve(s.bob.token, p.id, p.digest)).json().approval,
        approval,
        'approving again gives the first approval',
      );
      assert.equal((await au.show(s.alice.token, p.id)).json().status, 'approved');

      expectError(await au.execute(s.alice.token, p.id, 'f'.repeat(64)), 409, 'digest_mismatch');
      const executions = await Promise.all([1, 2, 3].map(() => au.execute(s.alice.token, p.id, p.digest)));
      for (const r of executions) assert.equal(r.statusCode, 200, r.body);
      const receipt = executions[0]!.json().receipt;
      for (const r of executions) assert.deepEqual(r.json().receipt, receipt, 'one receipt');
      assert.match(receipt.id, /^rcp_/);
      assert.deepEqual(
        [receipt.appliedVersion, receipt.proposalId, receipt.digest, receipt.approvals],
        [2, p.id, p.digest, [approval]],
      );
      assert.deepEqual(receipt.executedBy, { type: 'user', userId: s.alice.userId });
      const versions = (await prod.versions()).json();
      assert.equal(versions.current.version, 2, 'one version');
      assert.equal(versions.current.state.flags.checkout.value, true);
      const [entry] = await journalOf(app, s.alice.token, s.appId, { source: 'authority' });
      assert.equal(entry.id, receipt.changeId);
      assert.deepEqual([entry.operation, entry.beforeVersion, entry.afterVersion], ['flag.toggle', 1, 2]);
      assert.deepEqual(entry.context, {
        proposalId: p.id,
        receiptId: receipt.id,
        proposedBy: { type: 'user', userId: s.alice.userId },
        approvers: [s.bob.userId],
      });
      const view = (await au.show(s.bob.token, p.id)).json();
      assert.deepEqual([view.status, view.receipt, view.approvals], ['executed', receipt, [approval]]);
      assert.deepEqual(view.proposal, p, 'a proposal never changes');
      const carol = await signUp(app);
      await addMember(app, s.alice.token, s.appId, carol, 'editor');
      expectError(await au.approve(carol.token, p.id, p.digest), 409, 'proposal_closed');

      const observed = (await au.readback(s.val.token, receipt.id)).json();
      assert.deepEqual(observed.receipt, receipt);
      assert.deepEqual(
        [observed.observation.currentVersion, observed.observation.inEffect, observed.observation.superseded],
        [2, true, false],
      );
      assert.equal(observed.observation.appliedStateDigest, observed.observation.currentStateDigest);
      assert.ok(observed.observation.servedVersion <= 2);
      // A later change supersedes it.
      await au.protect(s.alice.token, 0);
      await prod.patch({ key: 'checkout', op: 'toggle' });
      const later = (await au.readback(s.alice.token, receipt.id)).json().observation;
      assert.deepEqual([later.currentVersion, later.inEffect, later.superseded], [3, false, true]);
      expectError(await au.readback(s.alice.token, 'rcp_missing'), 404, 'not_found');
      const listed = (await au.list(s.val.token, { status: 'executed' })).json().proposals;
      assert.deepEqual(
        listed.map((v: any) => v.proposal.id),
        [p.id],
      );
    });

    test('propose validates the change as its route would (same 400 details), checks baseVersion and the propose capability', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await twoPeople(app);
      const dev = flagsClient(app, s.alice.token, s.appId, 'dev');
      const au = authorityClient(app, s.appId, 'dev');
      await dev.patch({ key: 'n', type: 'number', value: 1 });
      const cases: [Record<string, unknown>, Record<string, unknown>][] = [
        [
          { key: 'n', value: 'not a number' },
          { key: 'n', value: 'not a number' },
        ],
        [
          { key: 'n', bogus: 1 },
          { key: 'n', bogus: 1 },
        ],
        [{ key: 'new-one' }, { key: 'new-one' }],
      ];
      for (const [body, direct] of cases) {
        const viaProposal = expectError(
          await au.propose(s.bob.token, { baseVersion: 1, change: { kind: 'flag.patch', body } }),
          400,
          (await dev.patch(direct)).json().error.code,
        );
        assert.deepEqual(viaProposal.details, (await dev.patch(direct)).json().error.details);
      }
      expectError(
        await au.propose(s.bob.token, { baseVersion: 1, change: { kind: 'flag.delete', body: { key: 'missing' } } }),
        404,
        'not_found',
      );
      expectError(
        await au.propose(s.bob.token, {
          baseVersion: 1,
          change: { kind: 'bulk.apply', body: { flags: { ghost: 1 } } },
        }),
        400,
        'validation_error',
      );
      expectValidation(
        await au.propose(s.bob.token, { baseVersion: 1, change: { kind: 'flag.rename', body: {} } }),
        '/change/kind',
      );
      expectValidation(
        await au.propose(s.bob.token, {
          baseVersion: 1,
          change: { kind: 'flag.patch', body: { key: 'n', value: 2 } },
          expiresInSeconds: 60,
        }),
        '/expiresInSeconds',
      );
      expectValidation(
        await au.propose(s.bob.token, {
          baseVersion: 1,
          change: { kind: 'flag.patch', body: { key: 'n', value: 2 } },
          reason: 'x'.repeat(1001),
        }),
        '/reason',
      );
      const conflict = expectError(
        await au.propose(s.bob.token, { baseVersion: 0, change: { kind: 'flag.patch', body: { key: 'n', value: 2 } } }),
        409,
        'version_conflict',
      );
      assert.equal(conflict.metadata?.currentVersion, 1);
      expectError(
        await au.propose(s.val.token, { baseVersion: 1, change: { kind: 'flag.patch', body: { key: 'n', value: 2 } } }),
        403,
        'capability_missing',
      );
      const readOnly = (await au.mint(s.bob.token, { capabilities: ['read'], appIds: [s.appId] })).json().token;
      expectError(
        await au.propose(readOnly, { baseVersion: 1, change: { kind: 'flag.patch', body: { key: 'n', value: 2 } } }),
        403,
        'capability_missing',
      );
      // An admin key may propose and execute (not approve); an unprotected environment needs no approval.
      const byKey = (
        await au.propose(s.admin, { baseVersion: 1, change: { kind: 'flag.patch', body: { key: 'n', value: 2 } } })
      ).json().proposal;
      assert.equal(byKey.proposedBy.type, 'admin_key');
      const receipt = (await au.execute(s.admin, byKey.id, byKey.digest)).json().receipt;
      assert.equal(receipt.appliedVersion, 2);
      assert.equal((await dev.list()).json().flags[0].value, 2);
      assert.equal((await dev.list()).json().version, 2);
    });

    test('stale and expired proposals are refused (409) and change nothing', async (t) => {
      const clock = testClock(Date.now());
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await twoPeople(app);
      const prod = flagsClient(app, s.alice.token, s.appId, 'prod');
      await prod.patch({ key: 'f', type: 'bool', value: false });
      const au = authorityClient(app, s.appId);
      await au.protect(s.alice.token, 1);
      const change = { kind: 'flag.patch', body: { key: 'f', value: true } };
      const stale = (await au.propose(s.alice.token, { baseVersion: 1, change })).json().proposal;
      const other = (
        await au.propose(s.alice.token, { baseVersion: 1, change: { kind: 'flag.delete', body: { key: 'f' } } })
      ).json().proposal;
      await au.approve(s.bob.token, stale.id, stale.digest);
      await au.approve(s.bob.token, other.id, other.digest);
      assert.equal((await au.execute(s.alice.token, other.id, other.digest)).statusCode, 200);
      assert.equal((await au.show(s.alice.token, stale.id)).json().status, 'stale');
      expectError(await au.execute(s.alice.token, stale.id, stale.digest), 409, 'stale_proposal');
      const carol = await signUp(app);
      await addMember(app, s.alice.token, s.appId, carol, 'editor');
      expectError(await au.approve(carol.token, stale.id, stale.digest), 409, 'proposal_closed');
      assert.equal((await prod.versions()).json().current.version, 2);

      await au.protect(s.alice.token, 0);
      await prod.patch({ key: 'g', type: 'bool', value: false });
      await au.protect(s.alice.token, 1);
      const short = (
        await au.propose(s.alice.token, {
          baseVersion: 3,
          change: { kind: 'flag.patch', body: { key: 'g', value: true } },
          expiresInSeconds: 300,
        })
      ).json().proposal;
      await au.approve(s.bob.token, short.id, short.digest);
      clock.advance(301_000);
      assert.equal((await au.show(s.alice.token, short.id)).json().status, 'expired');
      expectError(await au.execute(s.alice.token, short.id, short.digest), 409, 'proposal_expired');
      expectError(await au.approve(carol.token, short.id, short.digest), 409, 'proposal_closed');
      assert.equal((await prod.versions()).json().current.version, 3);
      expectError(await au.execute(s.alice.token, 'prp_missing', short.digest), 404, 'not_found');
      expectError(await au.show(s.alice.token, 'prp_missing'), 404, 'not_found');
    });

    test('a rollback through the workflow restores the target version, journaled with proposal and plan', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await twoPeople(app);
      const prod = flagsClient(app, s.alice.token, s.appId, 'prod');
      await prod.patch({ key: 'a', type: 'string', value: 'one' });
      await prod.patch({ key: 'a', value: 'two' });
      const au = authorityClient(app, s.appId);
      await au.protect(s.alice.token, 1);
      const plan = (
        await call(app, 'POST', '/api/v1/rollbacks/plan', {
          token: s.bob.token,
          payload: { appId: s.appId, env: 'prod', targetVersion: 1, expectedVersion: 2 },
        })
      ).json().plan;
      expectError(
        await au.propose(s.bob.token, {
          baseVersion: 2,
          change: { kind: 'rollback.apply', body: { targetVersion: 1, planDigest: 'a'.repeat(64) } },
        }),
        409,
        'plan_conflict',
      );
      const p = (
        await au.propose(s.bob.token, {
          baseVersion: 2,
          change: { kind: 'rollback.apply', body: { targetVersion: 1, planDigest: plan.digest } },
        })
      ).json().proposal;
      assert.deepEqual(p.preview.changes, plan.changes);
      await au.approve(s.alice.token, p.id, p.digest);
      const receipt = (await au.execute(s.bob.token, p.id, p.digest)).json().receipt;
      assert.equal(receipt.appliedVersion, 3);
      assert.equal(
        JSON.stringify((await prod.versions('/3')).json().state),
        JSON.stringify((await prod.versions('/1')).json().state),
      );
      const [entry] = await journalOf(app, s.alice.token, s.appId, { operation: 'rollback.apply' });
      assert.equal(entry.source, 'authority');
      assert.deepEqual(
        [entry.context.targetVersion, entry.context.planDigest, entry.context.proposalId, entry.context.approvers],
        [1, plan.digest, p.id, [s.alice.userId]],
      );
    });

    test('a read-back that differs from the preview rolls everything back (409 readback_mismatch)', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect });
      const s = await twoPeople(app);
      const dev = flagsClient(app, s.alice.token, s.appId, 'dev');
      await dev.patch({ key: 'f', type: 'string', value: 'before' });
      const au = authorityClient(app, s.appId, 'dev');
      const p = (
        await au.propose(s.alice.token, {
          baseVersion: 1,
          change: { kind: 'flag.patch', body: { key: 'f', value: 'after' } },
        })
      ).json().proposal;
      // Something between the write and the read-back alters the stored state (a faulty replica, a rogue trigger).
      const db = database.handle.db;
      if (dialect === 'postgres') {
        await sql`CREATE FUNCTION tamper() RETURNS trigger AS $$ BEGIN NEW.state := replace(NEW.state, '"after"', '"tampered"'); RETURN NEW; END; $$ LANGUAGE plpgsql`.execute(
          db,
        );
        await sql`CREATE TRIGGER tamper BEFORE UPDATE ON environment_configs FOR EACH ROW EXECUTE FUNCTION tamper()`.execute(
          db,
        );
      } else {
        await sql`CREATE TRIGGER tamper AFTER UPDATE OF version ON environment_configs BEGIN UPDATE environment_configs SET state = replace(state, '"after"', '"tampered"') WHERE env_id = NEW.env_id; END`.execute(
          db,
        );
      }
      const error = expectError(await au.execute(s.alice.token, p.id, p.digest), 409, 'readback_mismatch');
      assert.equal(error.metadata?.expectedVersion, 2);
      await sql`DROP TRIGGER tamper${sql.raw(dialect === 'postgres' ? ' ON environment_configs' : '')}`.execute(db);
      const state = (await dev.versions()).json();
      assert.deepEqual(
        [state.current.version, state.current.state.flags.f.value],
        [1, 'before'],
        'nothing was applied',
      );
      assert.equal((await journalOf(app, s.alice.token, s.appId, { source: 'authority' })).length, 0);
      assert.equal((await au.show(s.alice.token, p.id)).json().status, 'approved', 'no receipt');
      assert.equal(
        (await au.execute(s.alice.token, p.id, p.digest)).statusCode,
        200,
        'it can be executed once the fault is gone',
      );
    });

    test('scoped tokens: minted by a login token only, limited to their apps, environments, capabilities and lifetime', async (t) => {
      const clock = testClock(Date.now());
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const s = await twoPeople(app);
      const au = authorityClient(app, s.appId, 'dev');
      const second = (
        await call(app, 'POST', '/api/v1/apps', {
          token: s.bob.token,
          idem: true,
          payload: { name: 'Bob app', slug: 'bob-app' },
        })
      ).json().app.id;
      const res = await au.mint(s.bob.token, {
        capabilities: ['read', 'propose', 'read'],
        appIds: [s.appId],
        envs: ['development'],
        ttlSeconds: 600,
        name: 'ci',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const minted = res.json();
      assert.match(minted.token, /^cli_/);
      assert.deepEqual(
        [minted.capabilities, minted.appIds, minted.envs, minted.expiresAt],
        [['propose', 'read'], [s.appId], ['dev'], new Date(clock.now() + 600_000).toISOString()],
      );
      const token = minted.token;
      const apps = (await call(app, 'GET', '/api/v1/apps', { token })).json().apps;
      assert.deepEqual(
        apps.map((a: any) => [a.id, a.environments.map((e: any) => e.slug)]),
        [[s.appId, ['dev']]],
        "not Bob's other app, only dev",
      );
      assert.ok(second);
      expectError(
        await call(app, 'POST', '/api/v1/apps', { token, idem: true, payload: { name: 'X', slug: 'x-app' } }),
        401,
        'unauthorized',
      );
      expectError(await au.mint(token, { capabilities: ['read'], appIds: [s.appId] }), 403, 'forbidden');
      expectError(await au.mint(s.admin, { capabilities: ['read'], appIds: [s.appId] }), 403, 'forbidden');
      expectError(await au.mint(s.sdk.dev!, { capabilities: ['read'], appIds: [s.appId] }), 403, 'forbidden');
      expectError(await au.mint(s.val.token, { capabilities: ['read'], appIds: [second] }), 403, 'forbidden');
      expectError(await au.mint(s.val.token, { capabilities: ['read'], appIds: ['app_missing'] }), 404, 'not_found');
      for (const body of [
        { capabilities: [], appIds: [s.appId] },
        { capabilities: ['delete'], appIds: [s.appId] },
        { capabilities: ['read'], appIds: [] },
        { capabilities: ['read'], appIds: [s.appId], ttlSeconds: 59 },
        { capabilities: ['read'], appIds: [s.appId], ttlSeconds: 86401 },
      ]) {
        expectValidation(await au.mint(s.bob.token, body));
      }
      assert.equal((await flagsClient(app, token, s.appId, 'dev').list()).statusCode, 200);
      expectError(await flagsClient(app, token, s.appId, 'prod').list(), 403, 'forbidden');
      expectError(
        await flagsClient(app, token, s.appId, 'dev').patch({ key: 'x', type: 'bool', value: true }),
        403,
        'forbidden',
      );
      expectError(await flagsClient(app, token, second, 'dev').list(), 403, 'forbidden');
      // The user's current role caps the token: Val (viewer) cannot propose even if her token lists it.
      const valToken = (await au.mint(s.val.token, { capabilities: ['propose', 'read'], appIds: [s.appId] })).json()
        .token;
      expectError(
        await au.propose(valToken, { baseVersion: 0, change: { kind: 'flag.delete', body: { key: 'x' } } }),
        403,
        'capability_missing',
      );
      clock.advance(600_000);
      expectError(await flagsClient(app, token, s.appId, 'dev').list(), 401, 'unauthorized');
      const revocable = (await au.mint(s.bob.token, { capabilities: ['read'], appIds: [s.appId] })).json().token;
      assert.equal((await call(app, 'DELETE', '/api/v1/cli-token', { token: revocable })).statusCode, 204);
      expectError(await flagsClient(app, revocable, s.appId).list(), 401, 'unauthorized');
    });

    test('every route of issue 9 is in the OpenAPI document with request and response schemas', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const doc = (await call(app, 'GET', '/openapi.json')).json();
      const routes: [string, string, boolean][] = [
        ['post', '/api/v1/rollbacks/plan', true],
        ['post', '/api/v1/rollbacks/apply', true],
        ['post', '/api/v1/authority/tokens', true],
        ['post', '/api/v1/authority/propose', true],
        ['get', '/api/v1/authority/proposals', false],
        ['get', '/api/v1/authority/proposals/{id}', false],
        ['post', '/api/v1/authority/approve', true],
        ['post', '/api/v1/authority/execute', true],
        ['post', '/api/v1/authority/readback', true],
        ['get', '/api/v1/apps/{appId}/members', false],
        ['post', '/api/v1/apps/{appId}/members', true],
        ['patch', '/api/v1/apps/{appId}/members/{userId}', true],
        ['delete', '/api/v1/apps/{appId}/members/{userId}', false],
        ['patch', '/api/v1/envs', true],
      ];
      for (const [method, path, hasBody] of routes) {
        const op = doc.paths[path]?.[method];
        assert.ok(op, `${method} ${path} documented`);
        assert.ok(op.operationId && op.tags?.length, `${method} ${path} has operationId and tags`);
        if (hasBody)
          assert.ok(op.requestBody?.content?.['application/json']?.schema, `${method} ${path} request schema`);
        const success = op.responses['200'] ?? op.responses['201'] ?? op.responses['202'] ?? op.responses['204'];
        assert.ok(success, `${method} ${path} success response`);
        assert.ok(op.responses['401'], `${method} ${path} documents 401`);
      }
    });

    if (dialect === 'postgres') {
      test('two instances on one PostgreSQL: concurrent executes of one proposal give one version and one receipt', async (t) => {
        const database = await createTestDatabase('postgres');
        const handles = [database.handle, database.open()];
        const apps = await Promise.all(
          handles.map((handle) =>
            buildApp({ db: handle.db, dbHandle: handle, notifyChannel: database.pgSchema, config: testConfig() }),
          ),
        );
        t.after(async () => {
          for (const a of apps) await a.close();
          for (const h of handles) await h.close();
          await database.drop();
        });
        const s = await twoPeople(apps[0]!);
        const prod = flagsClient(apps[0]!, s.alice.token, s.appId, 'prod');
        await prod.patch({ key: 'f', type: 'number', value: 0 });
        const au = authorityClient(apps[0]!, s.appId);
        await au.protect(s.alice.token, 1);
        const p = (
          await au.propose(s.alice.token, {
            baseVersion: 1,
            change: { kind: 'flag.patch', body: { key: 'f', value: 1 } },
          })
        ).json().proposal;
        await au.approve(s.bob.token, p.id, p.digest);
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            au.execute(i % 2 ? s.bob.token : s.alice.token, p.id, p.digest, apps[i % 2]!),
          ),
        );
        for (const r of results) assert.equal(r.statusCode, 200, r.body);
        assert.equal(new Set(results.map((r) => r.json().receipt.id)).size, 1);
        const versions = await database.handle.db
          .selectFrom('config_versions')
          .select('version')
          .innerJoin('environments', 'environments.id', 'config_versions.env_id')
          .where('environments.app_id', '=', s.appId)
          .where('environments.slug', '=', 'prod')
          .execute();
        assert.deepEqual(versions.map((v) => Number(v.version)).sort(), [0, 1, 2]);
        assert.equal((await journalOf(apps[1]!, s.alice.token, s.appId, { source: 'authority' })).length, 1);
      });
    }
  });
}

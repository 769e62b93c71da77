// Executing experiment proposals in a protected environment (issue 20, decision 0029): a proposal
// whose revision or environment moved is stale and refused, and concurrent executes of one proposal
// give one change, in one process and across two on one PostgreSQL. The environment and its people
// are protected-experiments.fixtures.ts's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../../app.js';
import { buildTestApp, createTestDatabase, dialects, testConfig } from '../../../../test/helpers/test-app.js';
import { call, expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { authorityClient } from '../../core/authority/authority.test-client.js';
import { journalOf } from '../../core/flags/flags.test-client.js';
import { setup } from './protected-experiments.fixtures.js';

for (const dialect of dialects) {
  describe(`executing experiment proposals in a protected environment on ${dialect}`, () => {
    test('stale at execute: a revision that moved, an environment that moved; two concurrent executes give one change', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const s = await setup(app);
      const exp = await s.createExperiment('prod');
      const start = await s.proposeApproved(s.alice, s.bob, 'experiment.transition', {
        experimentId: exp.id,
        revision: 1,
        to: 'running',
      });
      // Concurrent executes: one version, one receipt, one journal entry.
      const v0 = await s.version();
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, i) => s.au.execute(i % 2 ? s.alice.token : s.bob.token, start.id, start.digest)),
      );
      for (const r of results) assert.equal(r.statusCode, 200, r.body);
      assert.equal(new Set(results.map((r) => r.json().receipt.id)).size, 1);
      assert.equal(await s.version(), v0 + 1);
      assert.equal((await journalOf(app, s.alice.token, s.appId, { operation: 'experiment.start' })).length, 1);
      assert.equal((await s.experiment(exp.id)).revision, 2);

      // The revision moves without a config change (a rename): the ramp proposal is stale, execute answers 409.
      const ramp = await s.proposeApproved(s.bob, s.alice, 'experiment.ramp', {
        experimentId: exp.id,
        revision: 2,
        allocation: 30,
      });
      assert.equal((await s.au.show(s.alice.token, ramp.id)).json().status, 'approved');
      const renamed = await call(app, 'PATCH', `/api/v1/experiments/${exp.id}`, {
        token: s.alice.token,
        idem: true,
        payload: { appId: s.appId, env: 'prod', revision: 2, name: 'Renamed' },
      });
      assert.equal(renamed.statusCode, 200, renamed.body); // a rename serves nothing: direct
      assert.equal((await s.au.show(s.alice.token, ramp.id)).json().status, 'stale');
      const conflict = expectError(await s.au.execute(s.bob.token, ramp.id, ramp.digest), 409, 'version_conflict');
      assert.equal(conflict.metadata?.currentRevision, 3);
      assert.equal((await s.experiment(exp.id)).allocation, 20, 'nothing applied');
      const carolLike = (await s.au.list(s.alice.token, { status: 'stale' }))
        .json()
        .proposals.map((v: any) => v.proposal.id);
      assert.deepEqual(carolLike, [ramp.id]);

      // The environment moves (an emergency pause): approving and executing an older proposal fail.
      const ramp2 = await s.au.propose(s.bob.token, {
        baseVersion: await s.version(),
        change: { kind: 'experiment.ramp', body: { experimentId: exp.id, revision: 3, allocation: 30 } },
      });
      assert.equal(ramp2.statusCode, 200, ramp2.body);
      const p2 = ramp2.json().proposal;
      await s.ok(await s.move(exp.id, 'transition', { to: 'paused', reason: 'incident' }, s.alice.token));
      expectError(await s.au.approve(s.alice.token, p2.id, p2.digest), 409, 'proposal_closed');
      expectError(await s.au.execute(s.bob.token, p2.id, p2.digest), 409, 'approvals_missing');

      // Proposing against a stale base or revision answers at once.
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: 0,
          change: { kind: 'experiment.ramp', body: { experimentId: exp.id, revision: 4, allocation: 30 } },
        }),
        409,
        'version_conflict',
      );
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.ramp', body: { experimentId: exp.id, revision: 1, allocation: 30 } },
        }),
        409,
        'version_conflict',
      );
      // And the route's own validation: same 400 paths, 404, 409 invalid_transition.
      expectValidation(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.ramp', body: { experimentId: exp.id, revision: 4, allocation: 120 } },
        }),
        '/allocation',
      );
      expectValidation(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.ramp', body: { revision: 4, allocation: 30 } },
        }),
        '/experimentId',
      );
      expectValidation(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: {
            kind: 'experiment.transition',
            body: { experimentId: exp.id, revision: 4, to: 'running', extra: 1 },
          },
        }),
      );
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.iterate', body: { experimentId: 'exp_missing', revision: 1 } },
        }),
        404,
        'not_found',
      );
      expectError(
        await s.au.propose(s.bob.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.transition', body: { experimentId: exp.id, revision: 4, to: 'archived' } },
        }),
        409,
        'invalid_transition',
      );
      expectError(
        await s.au.propose(s.val.token, {
          baseVersion: await s.version(),
          change: { kind: 'experiment.iterate', body: { experimentId: exp.id, revision: 4 } },
        }),
        403,
        'capability_missing',
      );
    });

    if (dialect === 'postgres') {
      test('two instances on one PostgreSQL: concurrent executes of a start give one iteration, one version, one receipt', async (t) => {
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
        const s = await setup(apps[0]!);
        const exp = await s.createExperiment('prod');
        const start = await s.proposeApproved(s.alice, s.bob, 'experiment.transition', {
          experimentId: exp.id,
          revision: 1,
          to: 'running',
        });
        const v0 = await s.version();
        const other = authorityClient(apps[1]!, s.appId, 'prod');
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 ? other : s.au).execute(i % 3 ? s.bob.token : s.alice.token, start.id, start.digest),
          ),
        );
        for (const r of results) assert.equal(r.statusCode, 200, r.body);
        assert.equal(new Set(results.map((r) => r.json().receipt.id)).size, 1);
        assert.equal(await s.version(), v0 + 1);
        const iterations = await database.handle.db
          .selectFrom('experiment_iterations')
          .select('id')
          .where('experiment_id', '=', exp.id)
          .execute();
        assert.deepEqual(
          iterations.map((r) => r.id),
          [`itr_${start.id.slice(4)}`],
        );
        assert.equal((await journalOf(apps[1]!, s.alice.token, s.appId, { source: 'authority' })).length, 1);
      });
    }
  });
}

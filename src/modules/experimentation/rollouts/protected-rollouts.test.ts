// Guarded rollouts in a protected environment (issue 20, decision 0029): creating, activating,
// stepping and completing through propose → approve → execute; pausing, cancelling and approving a
// recommended rollback directly with a reason. Alice owns the app, Bob edits, Val views.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { eventId, sendBatch } from '../../telemetry/ingestion/telemetry.fixtures.js';
import { authorityClient, twoPeople } from '../../core/authority/authority.test-client.js';
import { journalOf } from '../../core/flags/flags.test-client.js';
import { CHECKOUT_VARIANTS } from '../experiments/experiments.test-client.js';
import { testClock } from '../../../../test/helpers/clock.js';

const steps = [
  { percentage: 10, minDurationHours: 0 },
  { percentage: 50, minDurationHours: 0 },
  { percentage: 100, minDurationHours: 0 },
];

async function setup(t: Parameters<typeof buildTestApp>[0], dialect: (typeof dialects)[number]) {
  const clock = testClock(Date.now());
  const { app } = await buildTestApp(t, { dialect, now: clock.now });
  const s = await twoPeople(app);
  const env = { appId: s.appId, env: 'prod' };
  const ok = async (res: Awaited<ReturnType<typeof call>>, status = 200) => {
    assert.equal(res.statusCode, status, res.body);
    return res.json();
  };
  const post = (path: string, payload: Record<string, unknown>, token = s.alice.token) =>
    call(app, 'POST', path, { token, idem: true, payload: { ...env, ...payload } });
  const get = (path: string, query: Record<string, string | number> = {}, token = s.alice.token) =>
    call(
      app,
      'GET',
      `${path}?${new URLSearchParams(Object.entries({ ...env, ...query }).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
      { token },
    );
  await ok(
    await call(app, 'PATCH', '/api/v1/flags', {
      token: s.alice.token,
      payload: { ...env, key: 'checkout', type: 'string', value: 'classic' },
    }),
  );
  const conversion = (
    await ok(
      await post('/api/v1/metrics', {
        key: 'conversion',
        name: 'Conversion',
        kind: 'proportion',
        eventMetricKey: 'checkout.completed',
        direction: 'increase',
      }),
      201,
    )
  ).metric.id;
  const errorsId = (
    await ok(
      await post('/api/v1/metrics', {
        key: 'errors',
        name: 'Errors',
        kind: 'count',
        eventMetricKey: 'checkout.error',
        direction: 'decrease',
      }),
      201,
    )
  ).metric.id as string;
  const created = (
    await ok(
      await post('/api/v1/experiments', {
        key: 'checkout-exp',
        name: 'One-page checkout',
        flagKey: 'checkout',
        variants: CHECKOUT_VARIANTS,
        allocation: 20,
        primaryMetric: { metricId: conversion, revision: 1 },
        guardrailMetrics: [{ metricId: errorsId, revision: 1, maxRelativeDegradation: 0.05 }],
        analysis: { alpha: 0.05, sequential: false, sequentialTuning: 5000, cuped: false, minimumUnitsPerVariant: 10 },
      }),
      201,
    )
  ).experiment;
  await ok(await post(`/api/v1/experiments/${created.id}/transition`, { revision: 1, to: 'running' }));
  const experiment = (await ok(await get(`/api/v1/experiments/${created.id}`))).experiment;
  const au = authorityClient(app, s.appId, 'prod');
  assert.equal((await au.protect(s.alice.token, 1)).statusCode, 200);

  const path = `/api/v1/experiments/${experiment.id}/rollouts`;
  const plan = async (id: string) => (await ok(await get(`${path}/${id}`))).plan;
  const flag = async () => (await ok(await get('/api/v1/flags'))).flags.find((f: any) => f.key === 'checkout');
  const version = async () => (await ok(await get('/api/v1/flags'))).version as number;
  /** 100 subjects per variant with `errorsOf(variant, i)` errors each, then an aggregation run. */
  const measure = async (errorsOf: (variant: string, i: number) => number) => {
    clock.advance(60_000);
    const at = clock.now() - 30_000;
    const events: Record<string, unknown>[] = [];
    for (const variant of ['control', 'treatment']) {
      for (let i = 0; i < 100; i++) {
        const subject = `${variant}-${i}`;
        events.push({
          id: eventId('x'),
          kind: 'exposure',
          timestamp: new Date(at).toISOString(),
          targetingKey: subject,
          flagKey: 'checkout',
          variant,
          experimentId: experiment.id,
          iterationId: experiment.currentIteration.id,
        });
        const n = errorsOf(variant, i);
        if (n > 0)
          events.push({
            id: eventId('o'),
            kind: 'outcome',
            timestamp: new Date(at + 1000).toISOString(),
            targetingKey: subject,
            metricKey: 'checkout.error',
            metricValue: n,
          });
      }
    }
    for (let i = 0; i < events.length; i += 100)
      assert.equal((await sendBatch(app, s.sdk.prod!, events.slice(i, i + 100))).json().rejected, 0);
    const iteration = {
      iterationId: experiment.currentIteration.id,
      iterationRevision: experiment.currentIteration.revision,
    };
    await get(`/api/v1/experiments/${experiment.id}/results`, iteration);
    await post(`/api/v1/experiments/${experiment.id}/results/recompute`, {
      ...iteration,
      analysisEngineVersion: 'descriptive-v1',
      idempotencyKey: `recompute-${eventId('k')}`,
      confirm: true,
    });
    await app.jobs.drain();
  };
  const recommend = async (planId: string, token = s.bob.token) =>
    (
      await ok(
        await post(
          `${path}/${planId}/recommend`,
          { planVersion: (await plan(planId)).planVersion, confirm: true },
          token,
        ),
      )
    ).recommendation;
  const propose = async (by: { token: string }, kind: string, body: Record<string, unknown>) => {
    const res = await au.propose(by.token, { baseVersion: await version(), change: { kind, body } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().proposal;
  };
  const approve = async (by: { token: string }, proposal: { id: string; digest: string }) =>
    assert.equal((await au.approve(by.token, proposal.id, proposal.digest)).statusCode, 200);
  const execute = async (by: { token: string }, proposal: { id: string; digest: string }) => {
    const res = await au.execute(by.token, proposal.id, proposal.digest);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().receipt;
  };
  return {
    app,
    clock,
    s,
    au,
    post,
    get,
    ok,
    errorsId,
    experiment,
    path,
    plan,
    flag,
    version,
    measure,
    recommend,
    propose,
    approve,
    execute,
  };
}

for (const dialect of dialects) {
  describe(`guarded rollouts in a protected environment on ${dialect}`, () => {
    test('create, activate and each step forward through four eyes; a stale recommendation fails at execute; pause directly', async (t) => {
      const r = await setup(t, dialect);
      const { s, au } = r;
      // Creating through the workflow: without a planId the plan's id comes from the proposal's.
      const create = await r.propose(s.bob, 'rollout.create', {
        experimentId: r.experiment.id,
        variant: 'treatment',
        steps,
        guardrails: [{ metricId: r.errorsId, revision: 1, maxRelativeDegradation: 0.5 }],
        minimumUnitsPerStep: 50,
      });
      const planId = `rop_${create.id.slice(4)}`;
      assert.deepEqual(
        [
          create.preview.resource.type,
          create.preview.resource.id,
          create.preview.resource.before,
          create.preview.resource.after.state,
        ],
        ['rollout_plan', planId, null, 'draft'],
      );
      expectError(await au.approve(s.bob.token, create.id, create.digest), 403, 'self_approval_forbidden');
      await r.approve(s.alice, create);
      await r.execute(s.bob, create);
      assert.deepEqual([(await r.plan(planId)).state, (await r.plan(planId)).planVersion], ['draft', 1]);
      const [created] = await journalOf(r.app, s.alice.token, s.appId, { operation: 'rollout.create' });
      assert.deepEqual(
        [created.source, created.resourceId, created.context.proposalId],
        ['authority', planId, create.id],
      );

      // Activating directly: 403 naming rollout.transition and the command.
      const refused = expectError(
        await r.post(`${r.path}/${planId}/transition`, { planVersion: 1, to: 'active' }),
        403,
        'approval_required',
      );
      assert.equal(refused.metadata?.changeKind, 'rollout.transition');
      assert.equal(
        refused.metadata?.command,
        `ensign propose rollout-transition ${r.experiment.id} ${planId} --app ${s.appId} --env prod --to active --plan-version 1`,
      );
      expectError(
        await r.post(`${r.path}/${planId}/transition`, { planVersion: 1, to: 'active' }, s.val.token),
        403,
        'forbidden',
      );

      const before = await r.flag();
      const v0 = await r.version();
      const activate = await r.propose(s.alice, 'rollout.transition', {
        experimentId: r.experiment.id,
        planId,
        planVersion: 1,
        to: 'active',
      });
      assert.deepEqual(
        activate.preview.changes.map((c: any) => [c.resourceType, c.key, c.path, c.after]),
        [['flag', 'checkout', '/rollout', { percentage: 10, value: 'one-page', salt: `rollout:${planId}` }]],
      );
      assert.deepEqual(
        [
          activate.preview.resource.after.state,
          activate.preview.resource.after.currentStep,
          activate.preview.resource.after.baseVersion,
        ],
        ['active', 0, v0],
      );
      await r.approve(s.bob, activate);
      // Two people execute at once: one step, one receipt.
      const results = await Promise.all([
        au.execute(s.alice.token, activate.id, activate.digest),
        au.execute(s.bob.token, activate.id, activate.digest),
      ]);
      for (const res of results) assert.equal(res.statusCode, 200, res.body);
      assert.equal(results[0]!.json().receipt.id, results[1]!.json().receipt.id);
      const active = await r.plan(planId);
      assert.deepEqual(
        [active.state, active.currentStep, active.planVersion, active.baseVersion],
        ['active', 0, 2, v0],
      );
      assert.equal(await r.version(), v0 + 1);
      assert.deepEqual((await r.flag()).rollout, { percentage: 10, value: 'one-page', salt: `rollout:${planId}` });
      const [step] = await journalOf(r.app, s.alice.token, s.appId, { operation: 'rollout.step' });
      assert.deepEqual(
        [step.source, step.afterVersion, step.context.planId, step.context.proposalId, step.context.approvers],
        ['authority', v0 + 1, planId, activate.id, [s.bob.userId]],
      );
      const [moved] = await journalOf(r.app, s.alice.token, s.appId, { operation: 'rollout.transition' });
      assert.deepEqual(
        [moved.source, moved.context.to, moved.context.proposalId],
        ['authority', 'active', activate.id],
      );

      // Healthy data: proceed. Approving it directly is refused; proposed, it is a stale recommendation once a newer one is stored.
      await r.measure((_variant, i) => i % 3);
      const rec = await r.recommend(planId);
      assert.equal(rec.kind, 'proceed', JSON.stringify(rec));
      const approveRefused = expectError(
        await r.post(`${r.path}/${planId}/approve`, { planVersion: 3, recommendationDigest: rec.digest }),
        403,
        'approval_required',
      );
      assert.equal(approveRefused.metadata?.changeKind, 'rollout.approve');
      assert.equal(
        approveRefused.metadata?.command,
        `ensign propose rollout-approve ${r.experiment.id} ${planId} --app ${s.appId} --env prod --digest ${rec.digest} --plan-version 3`,
      );
      const stale = await r.propose(s.alice, 'rollout.approve', {
        experimentId: r.experiment.id,
        planId,
        planVersion: 3,
        recommendationDigest: rec.digest,
      });
      await r.approve(s.bob, stale);
      r.clock.advance(60_000);
      const newer = await r.recommend(planId);
      assert.notEqual(newer.digest, rec.digest);
      assert.equal((await au.show(s.bob.token, stale.id)).json().status, 'stale');
      const conflict = expectError(await au.execute(s.alice.token, stale.id, stale.digest), 409, 'version_conflict');
      assert.equal(conflict.metadata?.currentVersion, 4);
      assert.equal((await r.plan(planId)).currentStep, 0, 'nothing applied');
      // A proposal naming a digest that is not the stored recommendation's fails at once.
      expectError(
        await au.propose(s.alice.token, {
          baseVersion: await r.version(),
          change: {
            kind: 'rollout.approve',
            body: { experimentId: r.experiment.id, planId, planVersion: 4, recommendationDigest: rec.digest },
          },
        }),
        409,
        'recommendation_mismatch',
      );

      const proceed = await r.propose(s.bob, 'rollout.approve', {
        experimentId: r.experiment.id,
        planId,
        planVersion: 4,
        recommendationDigest: newer.digest,
      });
      assert.deepEqual(
        [proceed.preview.resource.after.currentStep, proceed.preview.resource.after.recommendation.approved],
        [1, true],
      );
      await r.approve(s.alice, proceed);
      await r.execute(s.alice, proceed);
      const stepped = await r.plan(planId);
      assert.deepEqual(
        [
          stepped.state,
          stepped.currentStep,
          stepped.planVersion,
          stepped.recommendation.digest,
          typeof stepped.recommendation.approvedAt,
        ],
        ['active', 1, 5, newer.digest, 'string'],
      );
      assert.equal((await r.flag()).rollout.percentage, 50);
      const [approval] = await journalOf(r.app, s.alice.token, s.appId, { operation: 'rollout.approval' });
      assert.deepEqual(
        [
          approval.source,
          approval.context.to,
          approval.context.step,
          approval.context.proposalId,
          approval.authority.userId,
        ],
        ['authority', 'active', 1, proceed.id, s.alice.userId],
      );

      // Pausing is a stop: direct, with a reason.
      expectValidation(
        await r.post(`${r.path}/${planId}/transition`, { planVersion: 5, to: 'paused' }, s.bob.token),
        '/reason',
      );
      expectError(
        await r.post(
          `${r.path}/${planId}/transition`,
          { planVersion: 5, to: 'paused', reason: 'support tickets' },
          s.val.token,
        ),
        403,
        'forbidden',
      );
      const paused = await r.ok(
        await r.post(
          `${r.path}/${planId}/transition`,
          { planVersion: 5, to: 'paused', reason: 'support tickets' },
          s.bob.token,
        ),
      );
      assert.deepEqual([paused.plan.state, paused.plan.history.at(-1).reason], ['paused', 'support tickets']);
      const [pause] = await journalOf(r.app, s.alice.token, s.appId, { operation: 'rollout.transition' });
      assert.deepEqual(
        [pause.source, pause.context.to, pause.context.reason],
        ['emergency', 'paused', 'support tickets'],
      );
      assert.equal((await r.flag()).rollout.percentage, 50, 'a pause serves nothing new');

      // Resuming and completing widen: four eyes.
      expectError(
        await r.post(`${r.path}/${planId}/transition`, { planVersion: 6, to: 'active', reason: 'ok' }),
        403,
        'approval_required',
      );
      expectError(
        await r.post(`${r.path}/${planId}/transition`, { planVersion: 6, to: 'completed', reason: 'ok' }),
        403,
        'approval_required',
      );
      const complete = await r.propose(s.bob, 'rollout.transition', {
        experimentId: r.experiment.id,
        planId,
        planVersion: 6,
        to: 'completed',
      });
      await r.approve(s.alice, complete);
      await r.execute(s.bob, complete);
      assert.equal((await r.plan(planId)).state, 'completed');
      assert.equal((await r.flag()).rollout.percentage, 100);
      assert.notDeepEqual((await r.flag()).rollout, before.rollout);
    });

    test('a guardrail breach: the recommended rollback approved directly with a reason (emergency); cancelling directly', async (t) => {
      const r = await setup(t, dialect);
      const { s } = r;
      // Creating a plan serves nothing: direct.
      const plan = (
        await r.ok(
          await r.post(
            r.path,
            {
              planId: 'checkout-rollout',
              variant: 'treatment',
              steps,
              guardrails: [{ metricId: r.errorsId, revision: 1, maxRelativeDegradation: 0.05 }],
            },
            s.bob.token,
          ),
          201,
        )
      ).plan;
      const before = await r.flag();
      const v0 = await r.version();
      const activate = await r.propose(s.bob, 'rollout.transition', {
        experimentId: r.experiment.id,
        planId: plan.id,
        planVersion: 1,
        to: 'active',
        step: 1,
      });
      await r.approve(s.alice, activate);
      await r.execute(s.bob, activate);
      assert.deepEqual([(await r.plan(plan.id)).currentStep, (await r.flag()).rollout.percentage], [1, 50]);

      // Treatment triples the errors: recommend_rollback.
      await r.measure((variant, i) => (variant === 'control' ? i % 3 : 2 + (i % 3)));
      const rec = await r.recommend(plan.id);
      assert.equal(rec.kind, 'recommend_rollback', JSON.stringify(rec));
      const body = { planVersion: 3, recommendationDigest: rec.digest };
      expectValidation(await r.post(`${r.path}/${plan.id}/approve`, body, s.bob.token), '/reason');
      expectError(
        await r.post(`${r.path}/${plan.id}/approve`, { ...body, reason: 'errors up' }, s.val.token),
        403,
        'capability_missing',
      );
      const rolledBack = await r.ok(
        await r.post(`${r.path}/${plan.id}/approve`, { ...body, reason: 'errors up 3x' }, s.bob.token),
      );
      assert.deepEqual([rolledBack.plan.state, rolledBack.configVersion], ['rolled_back', v0 + 2]);
      assert.deepEqual((await r.flag()).rollout, before.rollout, 'the flag is restored');
      const [rollback] = await journalOf(r.app, s.alice.token, s.appId, { operation: 'rollback.apply' });
      assert.deepEqual(
        [
          rollback.source,
          rollback.afterVersion,
          rollback.context.reason,
          rollback.context.planId,
          rollback.context.recommendationDigest,
          rollback.context.targetVersion,
        ],
        ['emergency', v0 + 2, 'errors up 3x', plan.id, rec.digest, v0],
      );
      const [approval] = await journalOf(r.app, s.alice.token, s.appId, { operation: 'rollout.approval' });
      assert.deepEqual(
        [approval.source, approval.context.reason, approval.context.to],
        ['emergency', 'errors up 3x', 'rolled_back'],
      );

      // Cancelling a plan is a stop too.
      const other = (await r.ok(await r.post(r.path, { variant: 'treatment', steps, guardrails: [] }), 201)).plan;
      expectValidation(
        await r.post(`${r.path}/${other.id}/transition`, { planVersion: 1, to: 'cancelled' }),
        '/reason',
      );
      const cancelled = await r.ok(
        await r.post(`${r.path}/${other.id}/transition`, { planVersion: 1, to: 'cancelled', reason: 'superseded' }),
      );
      assert.equal(cancelled.plan.state, 'cancelled');
      const entries = await journalOf(r.app, s.alice.token, s.appId, {
        resourceId: other.id,
        operation: 'rollout.transition',
      });
      assert.deepEqual(
        entries.map((e: any) => [e.source, e.context.reason]),
        [['emergency', 'superseded']],
      );
      // Every emergency entry of this test names its reason.
      for (const e of await journalOf(r.app, s.alice.token, s.appId, { source: 'emergency' }))
        assert.ok(typeof e.context?.reason === 'string' && e.context.reason.length > 0, JSON.stringify(e));
    });
  });
}

// Guarded rollout plans (issue 12) through the routes, with events sent through
// POST /api/v1/events/batch and aggregation runs drained as jobs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { addMember, call, expectError, expectValidation, signUp } from '../../../../test/helpers/fixtures.js';
import { eventId, sendBatch } from '../../telemetry/ingestion/telemetry.fixtures.js';
import { experimentsClient, type ExperimentsClient } from '../experiments/experiments.test-client.js';
import { testClock } from '../../../../test/helpers/clock.js';

const HOUR = 3_600_000;

async function setup(t: Parameters<typeof buildTestApp>[0], dialect: (typeof dialects)[number]) {
  const clock = testClock(Date.now());
  const { app } = await buildTestApp(t, { dialect, now: clock.now });
  const c = await experimentsClient(app);
  const errors = await c.post('/api/v1/metrics', {
    key: 'errors',
    name: 'Errors',
    kind: 'count',
    eventMetricKey: 'checkout.error',
    direction: 'decrease',
  });
  assert.equal(errors.statusCode, 201, errors.body);
  const errorsId = errors.json().metric.id as string;
  const exp = await c.create({
    allocation: 20,
    guardrailMetrics: [{ metricId: errorsId, revision: 1, maxRelativeDegradation: 0.05 }],
    analysis: { alpha: 0.05, sequential: false, sequentialTuning: 5000, cuped: false, minimumUnitsPerVariant: 10 },
  });
  await c.served(exp.id, 'transition', { to: 'running' });
  const experiment = (await c.get(`/api/v1/experiments/${exp.id}`)).json().experiment;
  const path = `/api/v1/experiments/${exp.id}/rollouts`;
  const flag = async () => (await c.get('/api/v1/flags')).json().flags.find((f: any) => f.key === 'checkout');
  return { app, clock, c, errorsId, experiment, path, flag };
}

/** 100 subjects per variant; each has `errorsOf(variant, i)` error outcomes after its exposure. */
async function sendErrors(
  app: any,
  c: ExperimentsClient,
  experiment: any,
  at: number,
  errorsOf: (variant: string, i: number) => number,
) {
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
  for (let i = 0; i < events.length; i += 100) {
    const res = await sendBatch(app, c.sdk, events.slice(i, i + 100));
    assert.equal(res.json().rejected, 0, res.body);
  }
}

/** Queues a run (the first results read does) and drains the jobs. */
async function aggregate(app: any, c: ExperimentsClient, experiment: any) {
  await c.get(`/api/v1/experiments/${experiment.id}/results`, {
    iterationId: experiment.currentIteration.id,
    iterationRevision: experiment.currentIteration.revision,
  });
  await c.post(`/api/v1/experiments/${experiment.id}/results/recompute`, {
    iterationId: experiment.currentIteration.id,
    iterationRevision: experiment.currentIteration.revision,
    analysisEngineVersion: 'descriptive-v1',
    idempotencyKey: `recompute-${eventId('k')}`,
    confirm: true,
  });
  await app.jobs.drain();
}

const steps = [
  { percentage: 10, minDurationHours: 0 },
  { percentage: 50, minDurationHours: 0 },
  { percentage: 100, minDurationHours: 0 },
];

for (const dialect of dialects) {
  describe(`rollout plans on ${dialect}`, () => {
    test('create: idempotent, dry run stores nothing, plan-id conflicts, invalid plans, credentials', async (t) => {
      const { c, errorsId, path, app } = await setup(t, dialect);
      const body = {
        planId: 'checkout-rollout-1',
        variant: 'treatment',
        steps,
        guardrails: [{ metricId: errorsId, revision: 1, maxRelativeDegradation: 0.05 }],
      };
      const preview = await c.post(path, { ...body, dryRun: true });
      assert.equal(preview.statusCode, 200, preview.body);
      assert.equal(preview.json().dryRun, true);
      assert.equal(preview.json().plan.state, 'draft');
      assert.deepEqual((await c.get(path)).json().plans, []);

      const created = await c.post(path, body, { idem: 'rollout-create-0001' });
      assert.equal(created.statusCode, 201, created.body);
      const plan = created.json().plan;
      assert.deepEqual(
        [plan.id, plan.planVersion, plan.state, plan.currentStep, plan.baseVersion],
        ['checkout-rollout-1', 1, 'draft', null, null],
      );
      const replay = await c.post(path, body, { idem: 'rollout-create-0001' });
      assert.equal(replay.statusCode, 201);
      assert.deepEqual(replay.json().plan, plan);
      expectError(
        await c.post(path, { ...body, variant: 'control' }, { idem: 'rollout-create-0001' }),
        409,
        'idempotency_conflict',
      );
      expectError(await c.post(path, body, { idem: 'rollout-create-0002' }), 409, 'plan_id_conflict');
      const generated = await c.post(path, { ...body, planId: undefined }, { idem: 'rollout-create-0003' });
      assert.match(generated.json().plan.id, /^rop_/);
      assert.equal((await c.get(`${path}/${plan.id}`)).json().plan.id, plan.id);
      expectError(await c.get(`${path}/missing-plan`), 404, 'not_found');

      expectValidation(
        await c.post(path, {
          ...body,
          planId: undefined,
          steps: [
            { percentage: 50, minDurationHours: 0 },
            { percentage: 20, minDurationHours: 0 },
          ],
        }),
      );
      expectValidation(
        await c.post(path, { ...body, planId: undefined, steps: [{ percentage: 50, minDurationHours: 0 }] }),
      );
      expectValidation(await c.post(path, { ...body, planId: undefined, variant: 'control' }));
      expectValidation(await c.post(path, { ...body, planId: undefined, variant: 'nope' }));
      expectValidation(
        await c.post(path, {
          ...body,
          planId: undefined,
          guardrails: [{ metricId: errorsId, revision: 9, maxRelativeDegradation: 0.05 }],
        }),
      );
      expectValidation(await c.post(path, { ...body, planId: undefined, extra: true }));
      assert.equal((await c.post(path, { ...body, planId: undefined }, { token: c.sdk })).statusCode, 401);
      const viewer = await signUp(app);
      await addMember(app, c.token, c.appId, viewer, 'viewer');
      expectError(await c.post(path, { ...body, planId: undefined }, { token: viewer.token }), 403, 'forbidden');
      assert.equal((await c.get(`${path}/${plan.id}`, {}, viewer.token)).statusCode, 200);
    });

    test('a degrading guardrail recommends a rollback whose approval restores the flag as a new version', async (t) => {
      const { app, clock, c, errorsId, experiment, path, flag } = await setup(t, dialect);
      const plan = (
        await c.post(path, {
          variant: 'treatment',
          steps,
          guardrails: [{ metricId: errorsId, revision: 1, maxRelativeDegradation: 0.05 }],
        })
      ).json().plan;
      const before = await flag();
      const versionBefore = await c.configVersion();

      const active = await c.post(`${path}/${plan.id}/transition`, { planVersion: 1, to: 'active' });
      assert.equal(active.statusCode, 200, active.body);
      const p2 = active.json().plan;
      assert.deepEqual([p2.state, p2.planVersion, p2.currentStep, p2.baseVersion], ['active', 2, 0, versionBefore]);
      assert.equal(p2.history.at(-1).configVersion, versionBefore + 1);
      assert.deepEqual((await flag()).rollout, { percentage: 10, value: 'one-page', salt: `rollout:${plan.id}` });
      expectError(
        await c.post(`${path}/${plan.id}/transition`, { planVersion: 1, to: 'paused' }),
        409,
        'version_conflict',
      );
      // Cleanup sees the unfinished plan on the flag.
      const cleanup = await call(app, 'POST', '/api/v1/cleanup', {
        token: c.token,
        payload: { appId: c.appId, envs: ['dev'] },
      });
      assert.equal(cleanup.statusCode, 200, cleanup.body);
      assert.ok(JSON.stringify(cleanup.json().inventory).includes(plan.id), 'the inventory names the rollout plan');
      expectError(
        await c.post(`${path}/${plan.id}/transition`, { planVersion: 2, to: 'active' }),
        400,
        'validation_error',
      );

      // No aggregate yet: stale, and a stale recommendation cannot be approved.
      const early = await c.post(`${path}/${plan.id}/recommend`, { planVersion: 2, confirm: true });
      assert.equal(early.statusCode, 200, early.body);
      assert.equal(early.json().recommendation.kind, 'stale');
      expectError(
        await c.post(`${path}/${plan.id}/approve`, {
          planVersion: 3,
          recommendationDigest: early.json().recommendation.digest,
        }),
        409,
        'recommendation_not_actionable',
      );
      assert.equal((await c.get(`${path}/${plan.id}`)).json().plan.state, 'active');

      // Treatment triples the errors (control 0,1,2,… mean 1; treatment mean 3): the errors guardrail
      // (direction decrease, at most +5 %) is breached.
      clock.advance(60_000);
      await sendErrors(app, c, experiment, clock.now() - 30_000, (variant, i) =>
        variant === 'control' ? i % 3 : 2 + (i % 3),
      );
      await aggregate(app, c, experiment);
      const peek = await c.post(`${path}/${plan.id}/recommend`, { planVersion: 3 });
      assert.equal(peek.json().recommendation.kind, 'recommend_rollback', peek.body);
      assert.equal(peek.json().plan.planVersion, 3, 'without confirm nothing is stored');
      const stored = (await c.post(`${path}/${plan.id}/recommend`, { planVersion: 3, confirm: true })).json();
      assert.equal(stored.plan.planVersion, 4);
      const rec = stored.recommendation;
      assert.equal(rec.kind, 'recommend_rollback');
      assert.ok(rec.reasons.some((r: string) => r.includes(errorsId)));
      assert.equal(rec.evidence.guardrails[0].status, 'breached');

      expectError(
        await c.post(`${path}/${plan.id}/approve`, { planVersion: 4, recommendationDigest: 'not-the-digest' }),
        409,
        'recommendation_mismatch',
      );
      expectError(
        await c.post(`${path}/${plan.id}/approve`, { planVersion: 3, recommendationDigest: rec.digest }),
        409,
        'version_conflict',
      );
      const approved = await c.post(`${path}/${plan.id}/approve`, { planVersion: 4, recommendationDigest: rec.digest });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().plan.state, 'rolled_back');
      const restoredVersion = approved.json().configVersion;
      assert.equal(restoredVersion, versionBefore + 2);
      assert.equal(await c.configVersion(), restoredVersion);
      assert.deepEqual((await flag()).rollout, before.rollout);
      const changes = (await c.get('/api/v1/changes')).json();
      const entry = changes.changes.find((e: any) => e.afterVersion === restoredVersion);
      assert.deepEqual(
        [entry?.source, entry?.operation, entry?.context?.planId],
        ['rollback', 'rollback.apply', plan.id],
        JSON.stringify(changes).slice(0, 800),
      );
      const step = changes.changes.find((e: any) => e.afterVersion === versionBefore + 1);
      assert.deepEqual([step?.operation, step?.context?.percentage], ['rollout.step', 10]);
      expectError(
        await c.post(`${path}/${plan.id}/transition`, { planVersion: 5, to: 'active' }),
        409,
        'invalid_transition',
      );
      // Every plan change is journaled too, besides the plan's own history.
      const planEntries = (await c.get('/api/v1/changes', { resourceType: 'rollout_plan', resourceId: plan.id })).json()
        .changes;
      assert.deepEqual(planEntries.map((e: any) => e.operation).sort(), [
        'rollout.approval',
        'rollout.create',
        'rollout.recommendation',
        'rollout.recommendation',
        'rollout.transition',
      ]);
      assert.equal(planEntries.find((e: any) => e.operation === 'rollout.approval').context.to, 'rolled_back');
    });

    test('healthy guardrails: proceed moves to the next step; an old aggregate is stale', async (t) => {
      const { app, clock, c, errorsId, experiment, path, flag } = await setup(t, dialect);
      const plan = (
        await c.post(path, {
          variant: 'treatment',
          steps,
          guardrails: [{ metricId: errorsId, revision: 1, maxRelativeDegradation: 0.5 }],
          minimumUnitsPerStep: 50,
        })
      ).json().plan;
      await c.post(`${path}/${plan.id}/transition`, { planVersion: 1, to: 'active' });
      clock.advance(60_000);
      await sendErrors(app, c, experiment, clock.now() - 30_000, (_variant, i) => i % 3);
      await aggregate(app, c, experiment);
      const rec = (await c.post(`${path}/${plan.id}/recommend`, { planVersion: 2, confirm: true })).json()
        .recommendation;
      assert.equal(rec.kind, 'proceed', JSON.stringify(rec));
      const approved = await c.post(`${path}/${plan.id}/approve`, { planVersion: 3, recommendationDigest: rec.digest });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.deepEqual([approved.json().plan.state, approved.json().plan.currentStep], ['active', 1]);
      assert.equal((await flag()).rollout.percentage, 50);
      expectError(
        await c.post(`${path}/${plan.id}/approve`, {
          planVersion: approved.json().plan.planVersion,
          recommendationDigest: rec.digest,
        }),
        409,
        'recommendation_not_actionable',
      );

      clock.advance(3 * HOUR);
      const stale = (
        await c.post(`${path}/${plan.id}/recommend`, { planVersion: approved.json().plan.planVersion })
      ).json().recommendation;
      assert.equal(stale.kind, 'stale');
      assert.match(stale.reasons[0], /older than 2 hours|minutes old/);

      const paused = await c.post(`${path}/${plan.id}/transition`, {
        planVersion: approved.json().plan.planVersion,
        to: 'paused',
      });
      assert.equal(paused.json().plan.state, 'paused');
      const done = await c.post(`${path}/${plan.id}/transition`, {
        planVersion: paused.json().plan.planVersion,
        to: 'completed',
      });
      assert.equal(done.json().plan.state, 'completed');
      assert.equal((await flag()).rollout.percentage, 100);
    });
  });
}

// Results, recompute and aggregation runs (issue 12) end to end: events go in through
// POST /api/v1/events/batch, runs are leased jobs drained with a moved clock, and the numbers are
// checked against values computed here from the events sent.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { call, expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { eventId, sendBatch, T0 } from '../../telemetry/ingestion/telemetry.fixtures.js';
import { experimentsClient, type ExperimentsClient } from './experiments.test-client.js';
import { AGGREGATION_JOB } from './aggregation-runs.jobs.js';
import { testClock } from '../../../../test/helpers/clock.js';

const MINUTE = 60_000;
const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≈ ${expected}`);

interface Arm {
  variant: string;
  exposed: number;
  converted: number;
}

/** Exposures of `exposed` subjects per arm, of which the first `converted` convert once after exposure. */
function armEvents(exp: { id: string; currentIteration: { id: string } }, at: number, arms: Arm[], prefix = 's') {
  const events: Record<string, unknown>[] = [];
  for (const arm of arms) {
    for (let i = 0; i < arm.exposed; i++) {
      const subject = `${prefix}-${arm.variant}-${i}`;
      events.push({
        id: eventId('x'),
        kind: 'exposure',
        timestamp: new Date(at).toISOString(),
        targetingKey: subject,
        flagKey: 'checkout',
        variant: arm.variant,
        experimentId: exp.id,
        iterationId: exp.currentIteration.id,
      });
      if (i < arm.converted)
        events.push({
          id: eventId('o'),
          kind: 'outcome',
          timestamp: new Date(at + 1000).toISOString(),
          targetingKey: subject,
          metricKey: 'checkout.completed',
        });
    }
  }
  return events;
}

async function send(app: Parameters<typeof sendBatch>[0], c: ExperimentsClient, events: Record<string, unknown>[]) {
  for (let i = 0; i < events.length; i += 100) {
    const res = await sendBatch(app, c.sdk, events.slice(i, i + 100));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().rejected, 0, res.body);
  }
}

async function runningExperiment(c: ExperimentsClient, fields: Record<string, unknown> = {}) {
  const exp = await c.create(fields);
  await c.served(exp.id, 'transition', { to: 'running' });
  return (await c.get(`/api/v1/experiments/${exp.id}`)).json().experiment;
}

for (const dialect of dialects) {
  describe(`experiment results and aggregation runs on ${dialect}`, () => {
    test('results equal values computed from the events; multiple exposures excluded; not_ready below the minimum', async (t) => {
      const clock = testClock(T0);
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const c = await experimentsClient(app);
      const exp = await runningExperiment(c);
      const query = { iterationId: exp.currentIteration.id, iterationRevision: exp.currentIteration.revision };
      const path = `/api/v1/experiments/${exp.id}/results`;

      const events = armEvents(exp, T0 + MINUTE, [
        { variant: 'control', exposed: 40, converted: 10 },
        { variant: 'treatment', exposed: 40, converted: 20 },
      ]);
      // One subject exposed to both variants: excluded, counted as a multiple exposure.
      for (const variant of ['control', 'treatment']) {
        events.push({
          id: eventId('x'),
          kind: 'exposure',
          timestamp: new Date(T0 + MINUTE).toISOString(),
          targetingKey: 'both',
          flagKey: 'checkout',
          variant,
          experimentId: exp.id,
          iterationId: exp.currentIteration.id,
        });
      }
      // An outcome before its subject's exposure does not count (no CUPED here).
      events.push({
        id: eventId('o'),
        kind: 'outcome',
        timestamp: new Date(T0 + 30_000).toISOString(),
        targetingKey: 's-control-39',
        metricKey: 'checkout.completed',
      });
      clock.advance(2 * MINUTE);
      await send(app, c, events);

      // No run yet: 404, and the read queued one.
      expectError(await c.get(path, query), 404, 'not_found');
      await app.jobs.drain();
      const res = await c.get(path, query);
      assert.equal(res.statusCode, 200, res.body);
      const r = res.json();
      assert.equal(r.analysisEngineVersion, 'descriptive-v1');
      assert.deepEqual(
        [r.experimentId, r.iterationId, r.iterationRevision],
        [exp.id, query.iterationId, query.iterationRevision],
      );
      assert.match(r.aggregate.runId, /^run_/);
      const [control, treatment] = r.aggregate.variants;
      assert.deepEqual([control.key, control.units, treatment.key, treatment.units], ['control', 40, 'treatment', 40]);
      const m = c.metricId;
      assert.equal(control.metrics[m].n, 40);
      close(control.metrics[m].mean, 0.25, 'control mean');
      close(treatment.metrics[m].mean, 0.5, 'treatment mean');
      close(control.metrics[m].variance, 0.25 * 0.75, 'control variance p(1 − p)');
      const fh = r.inference.fixedHorizon.find((x: any) => x.metricId === m && x.variant === 'treatment');
      close(fh.absolute.effect, 0.25, 'absolute effect');
      close(fh.absolute.standardError, Math.sqrt((0.25 * 0.75) / 40 + (0.5 * 0.5) / 40), 'Welch standard error');
      close(fh.relative.effect, 1, 'relative effect (0.5 / 0.25 − 1)');
      assert.ok(fh.absolute.ci[0] < 0.25 && fh.absolute.ci[1] > 0.25);
      assert.equal(r.inference.sequential, undefined);
      assert.equal(r.health.multipleExposures.count, 1);
      assert.equal(r.health.srm.status, 'healthy');
      // minimumUnitsPerVariant defaults to 100: 40 per variant is not enough.
      assert.equal(r.analysisDecision, 'not_ready');
      assert.ok(r.diagnostics.some((d: string) => d.includes('more than one variant')));
      assert.ok(
        r.watermark === undefined && r.aggregate.watermark.receivedAt > 0 && r.aggregate.watermark.eventId.length > 0,
      );
      assert.ok(!JSON.stringify(r).includes('s-control-1'), 'nothing per subject leaves the service');

      // The run is readable, succeeded, with its cause.
      const run = await c.get(`${path}/runs/${r.aggregate.runId}`);
      assert.equal(run.statusCode, 200, run.body);
      assert.equal(run.json().run.state, 'succeeded');
      assert.equal(run.json().run.cause, 'schedule');
      expectError(await c.get(`${path}/runs/run_missing`), 404, 'not_found');

      // Bad queries and credentials.
      expectValidation(await c.get(path, { iterationId: query.iterationId }));
      expectValidation(await c.get(path, { ...query, iterationRevision: 0 }));
      expectError(await c.get(path, { ...query, iterationRevision: 99 }), 404, 'not_found');
      assert.equal((await c.get(path, query, c.sdk)).statusCode, 401);

      // Erasing a converted treatment subject takes it out of the aggregate before the receipt completes.
      const erasure = await call(app, 'POST', '/api/v1/telemetry/erasures', {
        token: c.token,
        payload: { appId: c.appId, env: 'dev', namespace: 'targetingKey', subjectId: 's-treatment-0' },
      });
      assert.equal(erasure.statusCode, 202, erasure.body);
      await app.jobs.drain();
      const after = (await c.get(path, query)).json();
      assert.notEqual(after.aggregate.runId, r.aggregate.runId);
      assert.equal(after.aggregate.variants[1].units, 39);
      close(after.aggregate.variants[1].metrics[m].mean, 19 / 39, 'treatment mean without the erased subject');
      assert.equal((await c.get(`${path}/runs/${r.aggregate.runId}`)).json().run.state, 'superseded');
    });

    test('sample-ratio mismatch on a skewed split; sequential inference when the experiment asks for it', async (t) => {
      const clock = testClock(T0);
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const c = await experimentsClient(app);
      const exp = await runningExperiment(c, {
        analysis: { alpha: 0.05, sequential: true, sequentialTuning: 5000, cuped: false, minimumUnitsPerVariant: 10 },
      });
      clock.advance(2 * MINUTE);
      await send(
        app,
        c,
        armEvents(exp, T0 + MINUTE, [
          { variant: 'control', exposed: 100, converted: 20 },
          { variant: 'treatment', exposed: 160, converted: 40 },
        ]),
      );
      expectError(
        await c.get(`/api/v1/experiments/${exp.id}/results`, {
          iterationId: exp.currentIteration.id,
          iterationRevision: 1,
        }),
        404,
        'not_found',
      );
      await app.jobs.drain();
      const r = (
        await c.get(`/api/v1/experiments/${exp.id}/results`, {
          iterationId: exp.currentIteration.id,
          iterationRevision: 1,
        })
      ).json();
      // χ² = 2 · 30² / 130 with one degree of freedom.
      close(r.health.srm.chiSquare, (2 * 30 ** 2) / 130, 'SRM chi-square');
      assert.ok(r.health.srm.pValue < 0.001);
      assert.equal(r.health.srm.status, 'unhealthy');
      assert.equal(r.analysisDecision, 'not_ready');
      assert.equal(r.inference.sequential.length, 1);
      const seq = r.inference.sequential[0];
      const fixed = r.inference.fixedHorizon[0];
      assert.ok(
        seq.absolute.ci[1] - seq.absolute.ci[0] > fixed.absolute.ci[1] - fixed.absolute.ci[0],
        'the confidence sequence is wider',
      );
    });

    test('scheduled runs: at most once a minute while events arrive; a ramp gets an iteration_change run', async (t) => {
      const clock = testClock(Date.now());
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const db = database.handle.db;
      const c = await experimentsClient(app);
      const exp = await runningExperiment(c);
      const runsOf = async () =>
        (
          await db
            .selectFrom('experiment_aggregation_runs')
            .select(['cause', 'iteration_revision', 'state'])
            .where('experiment_id', '=', exp.id)
            .orderBy('queued_at')
            .execute()
        ).map((r) => [r.cause, Number(r.iteration_revision), r.state]);
      const tick = async (ms: number) => {
        clock.advance(ms);
        await app.jobs.ensureSchedules();
        await app.jobs.drain();
      };
      await send(
        app,
        c,
        armEvents(exp, clock.now(), [
          { variant: 'control', exposed: 3, converted: 1 },
          { variant: 'treatment', exposed: 3, converted: 1 },
        ]),
      );
      await tick(1000);
      assert.deepEqual(await runsOf(), [['schedule', 1, 'succeeded']]);
      // New events, but less than a minute since the last run: nothing yet; after it, one run.
      await send(app, c, armEvents(exp, clock.now(), [{ variant: 'control', exposed: 2, converted: 0 }], 'later'));
      await tick(30_000);
      assert.equal((await runsOf()).length, 1);
      await tick(31_000);
      assert.deepEqual(
        (await runsOf()).map((r) => r[0]),
        ['schedule', 'schedule'],
      );
      // No new events: no new run, however long it waits.
      await tick(120_000);
      assert.equal((await runsOf()).length, 2);
      // A ramp is a new revision of the iteration: the next scheduler pass runs it, new events or not.
      await c.served(exp.id, 'ramp', { allocation: 50 });
      await tick(61_000);
      assert.deepEqual((await runsOf()).at(-1), ['iteration_change', 2, 'succeeded']);
    });

    test('a run whose job is killed on every attempt fails with a diagnostic; recompute and scheduling go on', async (t) => {
      const clock = testClock(T0);
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const db = database.handle.db;
      const c = await experimentsClient(app);
      const exp = await runningExperiment(c);
      clock.advance(2 * MINUTE);
      await send(
        app,
        c,
        armEvents(exp, T0 + MINUTE, [
          { variant: 'control', exposed: 5, converted: 1 },
          { variant: 'treatment', exposed: 5, converted: 2 },
        ]),
      );
      const path = `/api/v1/experiments/${exp.id}/results/recompute`;
      const body = {
        iterationId: exp.currentIteration.id,
        iterationRevision: 1,
        analysisEngineVersion: 'descriptive-v1',
        idempotencyKey: 'recompute-killed-0001',
        confirm: true,
      };
      const run = (await c.post(path, body)).json().run;
      // What a process killed on the run's last attempt leaves: the run running, its job leased under an expired lease.
      const job = await db
        .selectFrom('jobs')
        .select(['id', 'max_attempts'])
        .where('kind', '=', AGGREGATION_JOB)
        .where('state', '=', 'queued')
        .executeTakeFirstOrThrow();
      await db
        .updateTable('jobs')
        .set({
          state: 'running',
          attempts: job.max_attempts,
          lease_owner: 'killed:1',
          lease_expires_at: new Date(clock.now() - 1).toISOString(),
        })
        .where('id', '=', job.id)
        .execute();
      await db.updateTable('experiment_aggregation_runs').set({ state: 'running' }).where('id', '=', run.id).execute();
      await app.jobs.runDue();
      const failed = (await c.get(`/api/v1/experiments/${exp.id}/results/runs/${run.id}`)).json().run;
      assert.equal(failed.state, 'failed');
      assert.match(failed.diagnostics.join(' '), /lease expired on the last attempt/);
      const again = await c.post(path, { ...body, idempotencyKey: 'recompute-killed-0002' });
      assert.equal(again.statusCode, 200, again.body);
      await app.jobs.drain();
      assert.equal(
        (await c.get(`/api/v1/experiments/${exp.id}/results/runs/${again.json().run.id}`)).json().run.state,
        'succeeded',
      );
      // The scheduler runs the iteration again when new events arrive.
      clock.advance(1000);
      await send(app, c, armEvents(exp, clock.now(), [{ variant: 'control', exposed: 1, converted: 0 }], 'late'));
      clock.advance(2 * MINUTE);
      await app.jobs.ensureSchedules();
      await app.jobs.drain();
      const runs = await db
        .selectFrom('experiment_aggregation_runs')
        .select(['state', 'cause'])
        .where('experiment_id', '=', exp.id)
        .execute();
      assert.deepEqual(
        runs.map((r) => r.state).sort(),
        ['failed', 'succeeded', 'superseded'],
        'a scheduled run followed the recompute',
      );
    });

    test('recompute: replay, idempotency conflict, watermark mismatch, unsafe recovery, raw-input gap, strict body', async (t) => {
      const clock = testClock(T0);
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const db = database.handle.db;
      const c = await experimentsClient(app);
      const exp = await runningExperiment(c);
      clock.advance(2 * MINUTE);
      await send(
        app,
        c,
        armEvents(exp, T0 + MINUTE, [
          { variant: 'control', exposed: 5, converted: 1 },
          { variant: 'treatment', exposed: 5, converted: 2 },
        ]),
      );
      const path = `/api/v1/experiments/${exp.id}/results/recompute`;
      const body = {
        iterationId: exp.currentIteration.id,
        iterationRevision: 1,
        analysisEngineVersion: 'descriptive-v1',
        idempotencyKey: 'recompute-key-000001',
        confirm: true,
      };

      const first = await c.post(path, body);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().replayed, false);
      const run = first.json().run;
      assert.equal(run.state, 'queued');
      assert.equal(run.cause, 'recompute');
      const replay = await c.post(path, body);
      assert.equal(replay.statusCode, 200);
      assert.deepEqual([replay.json().replayed, replay.json().run.id], [true, run.id]);
      expectError(await c.post(path, { ...body, iterationRevision: 2 }), 409, 'idempotency_conflict');

      await app.jobs.drain();
      const done = (await c.get(`/api/v1/experiments/${exp.id}/results/runs/${run.id}`)).json().run;
      assert.equal(done.state, 'succeeded');
      const results = (
        await c.get(`/api/v1/experiments/${exp.id}/results`, { iterationId: body.iterationId, iterationRevision: 1 })
      ).json();
      assert.equal(results.aggregate.runId, run.id);
      assert.deepEqual(done.watermark, results.aggregate.watermark);

      expectError(
        await c.post(path, {
          ...body,
          idempotencyKey: 'recompute-key-000002',
          priorWatermark: { receivedAt: 1, eventId: 'nope' },
        }),
        409,
        'watermark_mismatch',
      );
      const matching = await c.post(path, {
        ...body,
        idempotencyKey: 'recompute-key-000003',
        priorWatermark: results.aggregate.watermark,
      });
      assert.equal(matching.statusCode, 200, matching.body);

      // A run of the iteration is running: a second one now is refused.
      await db
        .updateTable('experiment_aggregation_runs')
        .set({ state: 'running' })
        .where('id', '=', matching.json().run.id)
        .execute();
      expectError(await c.post(path, { ...body, idempotencyKey: 'recompute-key-000004' }), 409, 'unsafe_recovery');
      await db
        .updateTable('experiment_aggregation_runs')
        .set({ state: 'queued' })
        .where('id', '=', matching.json().run.id)
        .execute();

      for (const bad of [
        { confirm: false },
        { analysisEngineVersion: 'bayesian-v2' },
        { idempotencyKey: 'short' },
        { extra: 1 },
        { priorWatermark: { receivedAt: -1, eventId: 'x' } },
      ]) {
        expectValidation(await c.post(path, { ...body, idempotencyKey: 'recompute-key-000005', ...bad }));
      }
      assert.equal(
        (await c.post(path, { ...body, idempotencyKey: 'recompute-key-000006' }, { token: c.sdk })).statusCode,
        401,
      );

      // 31 days on, the iteration's first raw events were purged by retention.
      clock.advance(31 * 86_400_000);
      expectError(await c.post(path, { ...body, idempotencyKey: 'recompute-key-000007' }), 409, 'raw_input_gap');
    });
  });
}

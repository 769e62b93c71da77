// End to end: conversion doubles while errors rise by 180 %: the results' analysisDecision is
// guardrail_violation (not evidence_qualified), with the breached guardrail in health.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { eventId, sendBatch, T0 } from '../../telemetry/ingestion/telemetry.fixtures.js';
import { experimentsClient } from './experiments.test-client.js';
import { testClock } from '../../../../test/helpers/clock.js';

const MINUTE = 60_000;

for (const dialect of dialects) {
  describe(`guardrail decision on ${dialect}`, () => {
    test('a guardrail breached in the treatment makes the decision guardrail_violation', async (t) => {
      const clock = testClock(T0);
      const { app } = await buildTestApp(t, { dialect, now: clock.now });
      const c = await experimentsClient(app);
      const errors = await c.post('/api/v1/metrics', {
        key: 'errors',
        name: 'Errors',
        kind: 'proportion',
        eventMetricKey: 'request.failed',
        direction: 'decrease',
      });
      assert.equal(errors.statusCode, 201, errors.body);
      const errorsId = errors.json().metric.id as string;
      const created = await c.create({
        guardrailMetrics: [{ metricId: errorsId, revision: 1, maxRelativeDegradation: 0.05 }],
      });
      await c.served(created.id, 'transition', { to: 'running' });
      const exp = (await c.get(`/api/v1/experiments/${created.id}`)).json().experiment;

      const at = T0 + MINUTE;
      const stamp = (ms: number) => new Date(ms).toISOString();
      const arms = [
        { variant: 'control', converted: 40, failed: 20 },
        { variant: 'treatment', converted: 80, failed: 56 },
      ];
      const events: Record<string, unknown>[] = [];
      for (const arm of arms) {
        for (let i = 0; i < 200; i++) {
          const subject = `${arm.variant}-${i}`;
          events.push({
            id: eventId('x'),
            kind: 'exposure',
            timestamp: stamp(at),
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
              timestamp: stamp(at + 1000),
              targetingKey: subject,
              metricKey: 'checkout.completed',
            });
          if (i >= 200 - arm.failed)
            events.push({
              id: eventId('e'),
              kind: 'outcome',
              timestamp: stamp(at + 1000),
              targetingKey: subject,
              metricKey: 'request.failed',
            });
        }
      }
      clock.advance(2 * MINUTE);
      for (let i = 0; i < events.length; i += 100) {
        const res = await sendBatch(app, c.sdk, events.slice(i, i + 100));
        assert.equal(res.json().rejected, 0, res.body);
      }
      const path = `/api/v1/experiments/${exp.id}/results`;
      const query = { iterationId: exp.currentIteration.id, iterationRevision: exp.currentIteration.revision };
      await c.get(path, query);
      await app.jobs.drain();
      const res = await c.get(path, query);
      assert.equal(res.statusCode, 200, res.body);
      const r = res.json();
      // The primary metric alone would qualify: conversion doubles, its interval excludes 0.
      const primary = r.inference.fixedHorizon.find((x: any) => x.metricId === c.metricId);
      assert.ok(primary.relative.ci[0] > 0, JSON.stringify(primary.relative));
      const [guardrail] = r.health.guardrails;
      assert.deepEqual(
        [guardrail.metricId, guardrail.variant, guardrail.status, guardrail.maxRelativeDegradation],
        [errorsId, 'treatment', 'breached', 0.05],
      );
      assert.ok(guardrail.ci[0] > 0.05, `errors interval ${guardrail.ci}`);
      assert.equal(r.analysisDecision, 'guardrail_violation');
    });
  });
}

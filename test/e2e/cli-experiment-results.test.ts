// How `ensign experiments results` shows a results document: metric names, per-variant rates or
// means, and p-values that stay readable when tiny.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatNumber, formatP, formatPercent, printResults } from '../../src/cli/commands/experiment-results.js';

test('numbers: p-values below 0.001 in scientific notation, percentages, plain numbers', () => {
  assert.equal(formatP(5.5e-8), '5.5e-8');
  assert.equal(formatP(0.00042), '4.2e-4');
  assert.equal(formatP(0.0312), '0.0312');
  assert.equal(formatP(1), '1.0000');
  assert.equal(formatP(0), '0');
  assert.equal(formatP(null), '-');
  assert.equal(formatPercent(0.1234), '12.34 %');
  assert.equal(formatPercent(1.8, true), '+180.00 %');
  assert.equal(formatPercent(-0.05, true), '-5.00 %');
  assert.equal(formatPercent(2e-7, true), '+2.0e-5 %');
  assert.equal(formatNumber(12.345678), '12.3457');
  assert.equal(formatNumber(0.00001234), '1.23e-5');
  assert.equal(formatNumber(-3), '-3');
});

test('results: metric names instead of ids, a rate per variant, tiny p-values readable', (t) => {
  const printed: string[] = [];
  t.mock.method(process.stdout, 'write', (chunk: string) => {
    printed.push(chunk);
    return true;
  });
  const effect = (value: number, ci: [number, number], pValue: number) => ({
    effect: value,
    standardError: 0.01,
    ci,
    pValue,
  });
  printResults(
    {
      experimentId: 'exp_1',
      iterationId: 'itr_1',
      iterationRevision: 1,
      analysisEngineVersion: 'descriptive-v1',
      aggregate: {
        runId: 'run_1',
        pinnedAt: '2026-11-20T12:00:00.000Z',
        watermark: { receivedAt: 1, eventId: 'e' },
        variants: [
          {
            key: 'control',
            units: 1000,
            metrics: {
              met_conv: { n: 1000, mean: 0.12, variance: 0.1056 },
              met_rev: { n: 1000, mean: 13.25, variance: 4 },
              met_err: { n: 1000, mean: 0.01, variance: 0.0099 },
            },
          },
          {
            key: 'treatment',
            units: 1100,
            metrics: {
              met_conv: { n: 1100, mean: 0.15, variance: 0.1275 },
              met_rev: { n: 1100, mean: 14.5, variance: 4 },
              met_err: { n: 1100, mean: 0.028, variance: 0.027 },
            },
          },
        ],
      },
      inference: {
        fixedHorizon: [
          {
            metricId: 'met_conv',
            variant: 'treatment',
            absolute: effect(0.03, [0.01, 0.05], 5.5e-8),
            relative: effect(0.25, [0.101, 0.399], 5.5e-8),
          },
          {
            metricId: 'met_err',
            variant: 'treatment',
            absolute: effect(0.018, [0.01, 0.026], 1e-9),
            relative: effect(1.8, [1.2, 2.4], 1e-9),
          },
        ],
      },
      analysisDecision: 'continue',
      health: {
        srm: { chiSquare: 30, degreesOfFreedom: 1, pValue: 5.5e-8, status: 'unhealthy' },
        multipleExposures: { count: 0, rate: 0, status: 'healthy' },
        guardrails: [
          {
            metricId: 'met_err',
            variant: 'treatment',
            ci: [1.2, 2.4],
            maxRelativeDegradation: 0.05,
            status: 'breached',
          },
        ],
      },
      freshness: { computedAt: '2026-11-20T12:00:00.000Z', lagSeconds: 3 },
      diagnostics: [],
    },
    new Map([
      ['met_conv', { id: 'met_conv', name: 'Checkout conversion', kind: 'proportion' }],
      ['met_rev', { id: 'met_rev', name: 'Revenue', kind: 'mean' }],
      ['met_err', { id: 'met_err', name: 'Errors', kind: 'proportion' }],
    ] as never),
  );
  const out = printed.join('');
  assert.match(out, /SRM p 5\.5e-8 \(unhealthy\)/);
  assert.doesNotMatch(out, /0\.00000/);
  assert.doesNotMatch(out, /met_/, 'metric ids are replaced by names');
  assert.match(out, /VARIANT\s+UNITS\s+Checkout conversion \(rate\)\s+Revenue \(mean\)\s+Errors \(rate\)/);
  assert.match(out, /control\s+1000\s+12\.00 %\s+13\.25\s+1\.00 %/);
  assert.match(out, /treatment\s+1100\s+15\.00 %\s+14\.5\s+2\.80 %/);
  assert.match(out, /fixed\s+Checkout conversion\s+treatment\s+\+25\.00 %\s+\[\+10\.10 %, \+39\.90 %\]\s+5\.5e-8/);
  assert.match(
    out,
    /guardrail Errors in treatment: breached, interval \[\+120\.00 %, \+240\.00 %\], tolerated 5\.00 %/,
  );
});

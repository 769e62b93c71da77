// The one retry-delay formula, with each kind of jitter its callers use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryDelayMs } from './backoff.js';

test('backoff: a ±fraction jitter spreads around the delay and stays under the cap', () => {
  const policy = { baseMs: 30_000, maxMs: 6 * 3_600_000, growth: 2.35, jitter: 0.2 };
  assert.equal(
    retryDelayMs(1, policy, () => 0),
    24_000,
  );
  assert.equal(
    retryDelayMs(1, policy, () => 0.5),
    30_000,
  );
  assert.equal(
    retryDelayMs(2, policy, () => 0.5),
    70_500,
  );
  assert.equal(
    retryDelayMs(30, policy, () => 0.999999),
    policy.maxMs,
  );
  assert.equal(
    retryDelayMs(30, policy, () => 0),
    policy.maxMs * 0.8,
  );
});

test('backoff: no jitter is the bare schedule; an impossible policy is refused', () => {
  const policy = { baseMs: 20, maxMs: 160, jitter: 0 };
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((n) => retryDelayMs(n, policy, Math.random)),
    [20, 40, 80, 160, 160],
  );
  assert.throws(() => retryDelayMs(1, { baseMs: 0, maxMs: 10 }), /baseMs/);
  assert.throws(() => retryDelayMs(1, { baseMs: 10, maxMs: 5 }), /baseMs/);
});

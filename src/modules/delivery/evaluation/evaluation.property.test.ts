// Property: remote evaluation answers the same values as the engine for the same context. Random
// contexts (and random defaultValues) go to POST /api/v1/evaluate; the flags as stored (read back
// through the management API) are compiled with compileFlagSet and evaluated in process; every
// field of every result must agree.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileFlagSet, type EvaluationResult, type FlagDefinition } from '@ensign/engine';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { bearer } from '../../../../test/helpers/fixtures.js';
import type { FlagInput } from '../../../../test/helpers/delivery-fixtures.js';
import { evaluate, FLAGS, flagsFixture } from './evaluation.fixtures.js';
import { expectedTypeOf } from './evaluation.service.js';

const TARGETED: FlagInput[] = [
  {
    key: 'version-gate',
    type: 'bool',
    value: false,
    rules: [
      {
        id: 'adults-on-new-app',
        conditions: [
          { attribute: 'appVersion', operator: 'semverGt', values: ['2.0.0'] },
          { attribute: 'email', operator: 'endsWith', values: ['@example.com'] },
          { attribute: 'age', operator: 'gte', values: [18] },
        ],
        serve: { rollout: { percentage: 50, value: true } },
      },
    ],
  },
  {
    key: 'date-gate',
    type: 'string',
    value: 'a',
    variants: [
      { key: 'a', value: 'a', weight: 70 },
      { key: 'b', value: 'b', weight: 30 },
    ],
    rules: [
      {
        id: 'recent-vips',
        conditions: [
          { attribute: 'signupAt', operator: 'after', values: ['2024-01-01T00:00:00Z'] },
          { attribute: 'user.tags', operator: 'contains', values: ['vip'] },
          { attribute: 'email', operator: 'matches', values: ['^[a-m]'] },
        ],
        serve: { variant: 'b' },
      },
    ],
  },
];

const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));
const instant = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2028, 0, 1) })
  .map((ms) => new Date(ms).toISOString());

/** Mostly values the rules care about, sometimes anything: both kinds of answer get exercised. */
const mostly = <T, U>(likely: fc.Arbitrary<T>, other: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: likely, weight: 4 }, { arbitrary: other, weight: 1 });

const context = fc.record(
  {
    targetingKey: fc.oneof(
      fc.constantFrom('user-vip', 'user-1', ''),
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.constant(null),
    ),
    plan: mostly(fc.constantFrom('free', 'beta', 'pro'), fc.string({ maxLength: 4 })),
    country: fc.constantFrom('NO', 'SE', 'US'),
    appVersion: mostly(
      fc.tuple(fc.nat(4), fc.nat(12), fc.nat(12)).map(([a, b, c]) => `${a}.${b}.${c}`),
      fc.string({ maxLength: 6 }),
    ),
    email: mostly(fc.constantFrom('ann@example.com', 'zed@example.com', 'bob@example.org'), fc.emailAddress()),
    age: mostly(fc.integer({ min: 0, max: 99 }), fc.oneof(finite, fc.constant('18'))),
    signupAt: mostly(instant, fc.string({ maxLength: 8 })),
    user: fc.record(
      { tags: fc.array(fc.constantFrom('vip', 'beta', 'staff'), { maxLength: 3 }) },
      { requiredKeys: [] },
    ),
    page: fc.string({ maxLength: 8 }),
  },
  { requiredKeys: ['plan', 'country', 'appVersion', 'email', 'age', 'signupAt', 'user'] },
);

type Context = typeof context extends fc.Arbitrary<infer C> ? C : never;

/** Matches the rules of both TARGETED flags and the fixture's `beta` rule. */
const REACHES_EVERY_RULE: Context = {
  targetingKey: 'user-1',
  plan: 'beta',
  country: 'NO',
  appVersion: '2.1.0',
  email: 'ann@example.com',
  age: 30,
  signupAt: '2025-01-01T00:00:00.000Z',
  user: { tags: ['vip'] },
  page: '',
};

/** Matches no rule: targeted flags serve their defaults. */
const MATCHES_NO_RULE: Context = {
  targetingKey: 'user-2',
  plan: 'free',
  country: 'SE',
  appVersion: '1.0.0',
  email: 'zed@example.org',
  age: 12,
  signupAt: '2021-01-01T00:00:00.000Z',
  user: {},
};

const defaultValue = fc.option(
  fc.oneof(fc.boolean(), fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null), fc.constant({ x: 1 })),
  { nil: undefined, freq: 2 },
);

/** The fields a remote detail must share with the engine's result for the same request. */
function expected(result: EvaluationResult, fallback: { value: unknown } | undefined) {
  const failed = result.reason === 'ERROR';
  const out: Record<string, unknown> = {
    key: result.key,
    value: failed ? (fallback ? fallback.value : null) : result.value,
    reason: result.reason,
    fallbackClass: result.fallbackClass,
  };
  for (const field of ['variant', 'ruleId', 'errorCode', 'errorMessage'] as const)
    if (result[field] !== undefined) out[field] = result[field];
  return out;
}

function comparable(detail: Record<string, unknown>) {
  const { origin, version, flagMetadata, ...rest } = detail;
  assert.equal(origin, 'remote');
  assert.equal(typeof version, 'number');
  assert.equal(typeof flagMetadata, 'object');
  return rest;
}

for (const dialect of dialects) {
  describe(`remote evaluation agrees with the engine on ${dialect}`, () => {
    test('same values, variants, reasons, rule ids and fallbacks for random contexts and defaultValues', async (t) => {
      const test = await buildTestApp(t, { dialect });
      const fx = await flagsFixture(test, [...FLAGS, ...TARGETED]);
      const stored = await test.app.inject({
        method: 'GET',
        url: `/api/v1/flags?appId=${fx.target.appId}&env=prod`,
        headers: bearer(fx.admin),
      });
      assert.equal(stored.statusCode, 200, stored.body);
      const engine = compileFlagSet(stored.json().flags as FlagDefinition[]);
      const keys = [...engine.keys(), 'no-such-flag'];
      const seen = new Set<string>();

      await fc.assert(
        fc.asyncProperty(
          context,
          defaultValue,
          fc.subarray(keys, { minLength: 1 }),
          async (ctx, fallbackValue, flagKeys) => {
            // What the server sees is the context after a JSON round trip.
            const sent = JSON.parse(JSON.stringify(ctx));
            const hasDefault = fallbackValue !== undefined;
            const body = { flagKeys, context: sent, ...(hasDefault ? { defaultValue: fallbackValue } : {}) };
            const res = await evaluate(test.app, fx.sdk, body);
            assert.equal(res.statusCode, 200, res.body);
            const { results } = res.json();
            const type = hasDefault ? expectedTypeOf(fallbackValue) : undefined;
            flagKeys.forEach((key, i) => {
              const want = expected(
                engine.evaluate(key, sent, type),
                hasDefault ? { value: fallbackValue } : undefined,
              );
              assert.deepEqual(comparable(results[i]), want, `${key} for ${JSON.stringify(sent)}`);
              seen.add(String(want.ruleId ?? want.errorCode ?? want.reason));
            });
          },
        ),
        {
          numRuns: 200,
          // Besides the random runs, contexts that reach every outcome for certain (rules of three
          // conditions, a type mismatch, an invalid context, no rule at all), so the coverage check
          // below never depends on the draw.
          examples: [
            [REACHES_EVERY_RULE, undefined, keys],
            [REACHES_EVERY_RULE, 'x', keys],
            [{ ...REACHES_EVERY_RULE, targetingKey: 7 }, undefined, keys],
            [MATCHES_NO_RULE, undefined, keys],
          ],
        },
      );
      // The contexts reach every outcome, so agreement is not agreement on defaults only.
      for (const outcome of [
        'STATIC',
        'DEFAULT',
        'SPLIT',
        'DISABLED',
        'beta',
        'adults-on-new-app',
        'recent-vips',
        'FLAG_NOT_FOUND',
        'TYPE_MISMATCH',
        'INVALID_CONTEXT',
      ]) {
        assert.ok(seen.has(outcome), `no random context reached ${outcome}: ${[...seen].join(', ')}`);
      }
    });
  });
}

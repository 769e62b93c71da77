// Property tests: the guarantees users rely on when they move a rollout or rename a salt.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { FlagDefinition, Variant } from './model.js';
import { withFlagDefaults } from './model.js';
import { bucketOf } from './bucketing.js';
import { compileFlagSet } from './compile.js';
import { ConfigInvalidError } from './config-invalid-error.js';

const flag = (fields: Partial<FlagDefinition> & { key: string }) =>
  withFlagDefaults({ type: 'bool', value: false, ...fields });

/** Percentages as the contract allows them: 0..100 with two decimals. */
const percentage = fc.integer({ min: 0, max: 10_000 }).map((hundredths) => hundredths / 100);
const targetingKey = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' });
const salt = fc.string({ minLength: 1, maxLength: 20 });

/** Weights in hundredths summing to exactly 100 %. */
const weights = fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 6 }).map((parts) => {
  const total = parts.reduce((a, b) => a + b, 0);
  const hundredths = parts.map((p) => Math.floor((p * 10_000) / total));
  hundredths[hundredths.length - 1] += 10_000 - hundredths.reduce((a, b) => a + b, 0);
  return hundredths.map((h) => h / 100);
});

/** Deterministic pseudo-random keys (mulberry32) so a failing run can be replayed from its seed. */
function randomKeys(seed: number, count: number): string[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => `${next().toString(36).slice(2)}-${Math.floor(next() * 1e9)}`);
}

describe('properties', () => {
  test('same input, same result: across evaluations and across compilations', () => {
    const definitions = () => [
      flag({ key: 'ramp', rollout: { percentage: 37.5, value: true } }),
      flag({
        key: 'color',
        type: 'string',
        value: 'grey',
        variants: [
          { key: 'a', value: 'red', weight: 20 },
          { key: 'b', value: 'blue', weight: 80 },
        ],
        rules: [
          {
            id: 'pro',
            conditions: [{ attribute: 'plan', operator: 'eq', values: ['pro'] }],
            serve: { rollout: { percentage: 50, value: 'gold' } },
          },
        ],
      }),
    ];
    const first = compileFlagSet(definitions());
    const second = compileFlagSet(definitions());
    fc.assert(
      fc.property(
        fc.option(targetingKey, { nil: undefined }),
        fc.constantFrom('pro', 'free', undefined),
        (key, plan) => {
          const context = { targetingKey: key, plan };
          for (const name of ['ramp', 'color']) {
            const result = first.evaluate(name, context);
            assert.deepEqual(first.evaluate(name, { ...context }), result);
            assert.deepEqual(second.evaluate(name, context), result);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('raising a rollout percentage never takes a subject out of the rollout', () => {
    fc.assert(
      fc.property(targetingKey, salt, percentage, percentage, (key, saltValue, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const set = compileFlagSet([
          flag({ key: 'low', rollout: { percentage: low, value: true, salt: saltValue } }),
          flag({ key: 'high', rollout: { percentage: high, value: true, salt: saltValue } }),
        ]);
        if (set.evaluate('low', { targetingKey: key }).value === true) {
          assert.equal(set.evaluate('high', { targetingKey: key }).value, true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('100,000 random keys split across variants within 1 percentage point of their weights', () => {
    fc.assert(
      fc.property(
        weights,
        fc.integer(),
        fc.string({ minLength: 1, maxLength: 12 }).map((s) => `exp-${s}`.replace(/[^A-Za-z0-9._:-]/g, 'x')),
        (weightList, seed, key) => {
          const variants: Variant[] = weightList.map((weight, i) => ({ key: `v${i}`, value: `value-${i}`, weight }));
          const set = compileFlagSet([flag({ key, type: 'string', value: 'off', variants })]);
          const counts = new Map<string, number>();
          const keys = randomKeys(seed, 100_000);
          for (const subject of keys) {
            const variant = set.evaluate(key, { targetingKey: subject }).variant as string;
            counts.set(variant, (counts.get(variant) ?? 0) + 1);
          }
          for (const variant of variants) {
            const share = ((counts.get(variant.key) ?? 0) / keys.length) * 100;
            assert.ok(
              Math.abs(share - variant.weight) <= 1,
              `${variant.key}: ${share.toFixed(2)} % for weight ${variant.weight}`,
            );
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  test('changing the salt re-shuffles subjects', () => {
    fc.assert(
      fc.property(salt, salt, fc.integer(), (saltA, saltB, seed) => {
        fc.pre(saltA !== saltB);
        const keys = randomKeys(seed, 10_000);
        let movedBucket = 0;
        let switchedSide = 0;
        for (const key of keys) {
          const a = bucketOf(saltA, key);
          const b = bucketOf(saltB, key);
          if (a !== b) movedBucket++;
          if (a < 5000 !== b < 5000) switchedSide++;
        }
        // Independent buckets: almost every subject moves, and half of a 50 % rollout changes side.
        assert.ok(movedBucket / keys.length > 0.99, `only ${movedBucket} moved`);
        const switched = switchedSide / keys.length;
        assert.ok(switched > 0.45 && switched < 0.55, `${(switched * 100).toFixed(1)} % switched side`);
      }),
      { numRuns: 50 },
    );
  });

  interface GraphSpec {
    values: boolean[];
    ruleValues: Array<boolean | null>;
    edges: Array<{ from: number; to: number; value: boolean }>;
  }

  /** Random DAGs: edges only go from a flag to a flag with a higher index. */
  const dag = fc.integer({ min: 2, max: 12 }).chain((n) =>
    fc.record({
      values: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      ruleValues: fc.array(fc.option(fc.boolean(), { nil: null }), { minLength: n, maxLength: n }),
      edges: fc.uniqueArray(
        fc
          .tuple(fc.integer({ min: 0, max: n - 2 }), fc.integer({ min: 1, max: n - 1 }), fc.boolean())
          .filter(([from, to]) => from < to)
          .map(([from, to, value]) => ({ from, to, value })),
        { selector: (e) => `${e.from}-${e.to}`, maxLength: 20 },
      ),
    }),
  );

  function definitionsOf(spec: GraphSpec): FlagDefinition[] {
    return spec.values.map((value, i) =>
      flag({
        key: `f${i}`,
        value,
        rules: spec.ruleValues[i] === null ? [] : [{ id: 'all', conditions: [], serve: { value: spec.ruleValues[i] } }],
        dependencies: spec.edges.filter((e) => e.from === i).map((e) => ({ flag: `f${e.to}`, value: e.value })),
      }),
    );
  }

  test('dependency chains: a flag is DISABLED exactly when a prerequisite misses its value', () => {
    fc.assert(
      fc.property(dag, (spec) => {
        const set = compileFlagSet(definitionsOf(spec));
        // Reference semantics, written the obvious recursive way.
        const expected = (i: number): boolean => {
          const unmet = spec.edges.some((e) => e.from === i && expected(e.to) !== e.value);
          if (unmet) return spec.values[i];
          return spec.ruleValues[i] ?? spec.values[i];
        };
        spec.values.forEach((_, i) => {
          const result = set.evaluate(`f${i}`, {});
          assert.equal(result.value, expected(i));
          const unmet = spec.edges.some((e) => e.from === i && expected(e.to) !== e.value);
          assert.equal(result.reason === 'DISABLED', unmet);
          assert.equal(result.fallbackClass, unmet ? 'dependency_unmet' : 'none');
        });
      }),
      { numRuns: 300 },
    );
  });

  test('dependency cycles: closing any path into a cycle is refused, naming the cycle', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10 }), fc.nat(), (length, rotation) => {
        // A chain f0 → f1 → … → f(length-1), closed by an edge back to f0 (length 1 is a
        // self-dependency, refused per flag with its own code).
        const definitions = Array.from({ length }, (_, i) =>
          flag({ key: `f${i}`, dependencies: [{ flag: `f${(i + 1) % length}`, value: false }] }),
        );
        // The order of the definitions must not matter.
        const shift = rotation % length;
        const rotated = [...definitions.slice(shift), ...definitions.slice(0, shift)];
        assert.throws(
          () => compileFlagSet(rotated),
          (error: unknown) => {
            assert.ok(error instanceof ConfigInvalidError);
            const cycles = error.issues.filter((issue) => issue.code === 'dependency_cycle');
            assert.equal(cycles.length, 1);
            for (let i = 0; i < length; i++) assert.ok(cycles[0].message.includes(`f${i}`), cycles[0].message);
            return true;
          },
        );
      }),
      { numRuns: 200 },
    );
  });
});

describe('properties: the off switch', () => {
  test('a disabled flag never serves anything but its off value, whatever its targeting and the context', () => {
    const context = fc.record({
      targetingKey: fc.option(targetingKey, { nil: undefined }),
      plan: fc.constantFrom('pro', 'free', undefined),
      country: fc.constantFrom('FR', 'DE', undefined),
    });
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer(),
        percentage,
        fc.boolean(),
        fc.array(context, { minLength: 1, maxLength: 20 }),
        (value, offValue, pct, useVariants, contexts) => {
          const set = compileFlagSet([
            flag({ key: 'gate', type: 'number', value: 1 }),
            flag({
              key: 'f',
              type: 'number',
              value,
              enabled: false,
              offValue,
              overrides: { 'user-1': value + 1 },
              rules: [
                {
                  id: 'pro',
                  conditions: [{ attribute: 'plan', operator: 'eq', values: ['pro'] }],
                  serve: { value: value + 2 },
                },
              ],
              dependencies: [{ flag: 'gate', value: 2 }],
              ...(useVariants
                ? {
                    variants: [
                      { key: 'a', value: value + 3, weight: 50 },
                      { key: 'b', value: value + 4, weight: 50 },
                    ],
                  }
                : { rollout: { percentage: pct, value: value + 5 } }),
            }),
          ]);
          for (const c of [...contexts, { targetingKey: 'user-1', plan: 'pro' }]) {
            const result = set.evaluate('f', c);
            assert.equal(result.value, offValue);
            assert.equal(result.reason, 'DISABLED');
          }
        },
      ),
    );
  });
});

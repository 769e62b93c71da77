// Assignment of running experiments: examples through compileFlagSet, and the properties issue 11
// asks for (determinism, ramps that never move anyone, splits within a point, layer exclusivity,
// holdouts never assigned).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileAssignment, compileFlagSet, withFlagDefaults, type ServedExperiment } from './index.js';

function experiment(fields: Partial<ServedExperiment> = {}): ServedExperiment {
  return {
    id: 'exp_1',
    key: 'checkout-test',
    flagKey: 'checkout',
    state: 'running',
    iterationId: 'itr_1',
    iterationNumber: 1,
    iterationRevision: 1,
    salt: 'salt-1',
    allocation: 100,
    variants: [
      { key: 'control', value: 'old', weight: 50 },
      { key: 'treatment', value: 'new', weight: 50 },
    ],
    targeting: [],
    layer: null,
    holdout: null,
    ...fields,
  };
}

const flag = withFlagDefaults({ key: 'checkout', type: 'string', value: 'old', overrides: { 'vip-1': 'vip' } });
const keys = (n: number, prefix = 'user-') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('experiment assignment', () => {
  test('an assigned subject gets a variant with reason SPLIT and the experiment detail', () => {
    const set = compileFlagSet([flag], [experiment()]);
    const result = set.evaluate('checkout', { targetingKey: 'user-1' });
    assert.equal(result.reason, 'SPLIT');
    assert.ok(result.variant === 'control' || result.variant === 'treatment');
    assert.equal(result.value, result.variant === 'control' ? 'old' : 'new');
    assert.deepEqual(result.experiment, {
      id: 'exp_1',
      iterationId: 'itr_1',
      iterationRevision: 1,
      variant: result.variant,
      inExperiment: true,
      reason: 'assigned',
    });
  });

  test('overrides come first; no key, unmatched targeting and allocation give the ordinary value with why', () => {
    const set = compileFlagSet(
      [flag],
      [experiment({ allocation: 0, targeting: [{ attribute: 'plan', operator: 'eq', values: ['pro'] }] })],
    );
    const override = set.evaluate('checkout', { targetingKey: 'vip-1', plan: 'pro' });
    assert.equal(override.value, 'vip');
    assert.equal(override.experiment, undefined);
    assert.deepEqual(set.evaluate('checkout', { targetingKey: 'user-1' }).experiment?.reason, 'not_targeted');
    const out = set.evaluate('checkout', { targetingKey: 'user-1', plan: 'pro' });
    assert.equal(out.value, 'old');
    assert.equal(out.reason, 'DEFAULT', 'the flag has targeting (overrides) that did not apply');
    assert.deepEqual(out.experiment, {
      id: 'exp_1',
      iterationId: 'itr_1',
      iterationRevision: 1,
      variant: null,
      inExperiment: false,
      reason: 'not_allocated',
    });
    assert.equal(set.evaluate('checkout', { plan: 'pro' }).experiment?.reason, 'not_allocated');
    // Annotated results are shared like every other result.
    assert.equal(
      set.evaluate('checkout', { targetingKey: 'user-2', plan: 'pro' }),
      set.evaluate('checkout', { targetingKey: 'user-3', plan: 'pro' }),
    );
  });

  test('paused experiments, experiments on missing flags and variants of another type are ignored', () => {
    for (const e of [
      experiment({ state: 'paused' }),
      experiment({ flagKey: 'other' }),
      experiment({
        variants: [
          { key: 'a', value: 1, weight: 50 },
          { key: 'b', value: 2, weight: 50 },
        ],
      }),
    ]) {
      const result = compileFlagSet([flag], [e]).evaluate('checkout', { targetingKey: 'user-1' });
      assert.equal(result.value, 'old');
      assert.equal(result.experiment, undefined);
    }
  });

  test('a layer range replaces the allocation draw; outside it is layer_excluded', () => {
    const layer = { id: 'lay_1', salt: 'layer-salt', start: 0, end: 2000 };
    const assign = compileAssignment(experiment({ allocation: 0, layer }));
    const reasons = new Set(keys(500).map((k) => assign({}, k).reason));
    assert.deepEqual([...reasons].sort(), ['assigned', 'layer_excluded']);
  });

  test('property: assignment is deterministic', () => {
    const compiled = compileFlagSet([flag], [experiment({ allocation: 40 })]);
    const again = compileFlagSet([flag], [experiment({ allocation: 40 })]);
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (key) => {
        assert.equal(
          compiled.evaluate('checkout', { targetingKey: key }),
          compiled.evaluate('checkout', { targetingKey: key }),
        );
        assert.deepEqual(
          again.evaluate('checkout', { targetingKey: key }),
          compiled.evaluate('checkout', { targetingKey: key }),
        );
      }),
      { numRuns: 500 },
    );
  });

  test('property: a ramp up never moves an assigned subject; a ramp down removes only subjects', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(fc.string({ minLength: 1 }), { minLength: 50, maxLength: 50 }),
        (a, b, subjects) => {
          const low = compileAssignment(experiment({ allocation: Math.min(a, b) / 100 }));
          const high = compileAssignment(experiment({ allocation: Math.max(a, b) / 100 }));
          for (const key of subjects) {
            const before = low({}, key);
            if (before.reason === 'assigned') assert.deepEqual(high({}, key), before);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  test('property: 100,000 keys split within 1 point of allocation and weights', () => {
    for (const [allocation, weights] of [
      [30, [50, 50]],
      [75, [10, 30, 60]],
      [12.5, [20, 20, 20, 20, 20]],
    ] as const) {
      const variants = weights.map((weight, i) => ({ key: `v${i}`, value: `v${i}`, weight }));
      const assign = compileAssignment(experiment({ allocation, variants, salt: `split-${allocation}` }));
      const counts = new Array<number>(weights.length).fill(0);
      let assigned = 0;
      for (const key of keys(100_000)) {
        const a = assign({}, key);
        if (a.reason === 'assigned') {
          assigned++;
          counts[a.variantIndex]!++;
        }
      }
      assert.ok(Math.abs((assigned / 100_000) * 100 - allocation) <= 1, `allocation ${allocation}: ${assigned}`);
      weights.forEach((weight, i) =>
        assert.ok(Math.abs((counts[i]! / assigned) * 100 - weight) <= 1, `weight ${weight}: ${counts[i]}/${assigned}`),
      );
    }
  });

  test('property: two experiments in one layer never share a subject', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.string(),
        (x, y, layerSalt) => {
          const cut = Math.min(x, y);
          const end = Math.max(x, y);
          const first = compileAssignment(
            experiment({ id: 'exp_a', layer: { id: 'lay_1', salt: layerSalt, start: 0, end: cut } }),
          );
          const second = compileAssignment(
            experiment({ id: 'exp_b', salt: 'other', layer: { id: 'lay_1', salt: layerSalt, start: cut, end } }),
          );
          for (const key of keys(200, `${layerSalt}-`)) {
            assert.ok(!(first({}, key).reason === 'assigned' && second({}, key).reason === 'assigned'), key);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  test('property: holdout subjects are never assigned and get the ordinary value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.string({ minLength: 1 }), (hundredths, key) => {
        const holdout = { id: 'hol_1', salt: 'hold', percentage: hundredths / 100 };
        const set = compileFlagSet([flag], [experiment({ holdout })]);
        const held = compileAssignment(experiment({ holdout }))({}, key).reason === 'holdout';
        const result = set.evaluate('checkout', { targetingKey: key });
        if (held) {
          assert.equal(result.experiment?.inExperiment, false);
          assert.equal(result.value, key === 'vip-1' ? 'vip' : 'old');
        }
      }),
      { numRuns: 300 },
    );
    const holdout = { id: 'hol_1', salt: 'hold', percentage: 10 };
    const assign = compileAssignment(experiment({ holdout }));
    const held = keys(20_000).filter((k) => assign({}, k).reason === 'holdout').length;
    assert.ok(Math.abs(held / 200 - 10) <= 1, `about 10 % held out: ${held}`);
  });
});

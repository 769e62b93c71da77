import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvaluationResult, FlagDefinition } from './model.js';
import { withFlagDefaults } from './model.js';
import { bucketOf } from './bucketing.js';
import { compileFlagSet } from './compile.js';

// Evaluation order and reasons: prerequisites → overrides → rules → variants or rollout → value.

const flag = (fields: Partial<FlagDefinition> & { key: string }) =>
  withFlagDefaults({ type: 'bool', value: false, ...fields });

/** The fields that matter, without the undefined ones every result carries. */
function summary(result: EvaluationResult): Record<string, unknown> {
  return Object.fromEntries(Object.entries(result).filter(([, value]) => value !== undefined));
}

/** Targeting keys whose bucket for `salt` is below / at or above `threshold`. */
function keysAround(salt: string, threshold: number): { inside: string; outside: string } {
  let inside: string | undefined;
  let outside: string | undefined;
  for (let i = 0; inside === undefined || outside === undefined; i++) {
    const key = `user-${i}`;
    if (bucketOf(salt, key) < threshold) inside ??= key;
    else outside ??= key;
  }
  return { inside, outside };
}

describe('evaluate: overrides and rules', () => {
  const set = compileFlagSet([
    flag({
      key: 'beta',
      overrides: { 'user-1': true, 'vip-1': false },
      rules: [
        {
          id: 'vips',
          conditions: [{ attribute: 'targetingKey', operator: 'startsWith', values: ['vip-'] }],
          serve: { value: true },
        },
        {
          id: 'fr-pro',
          conditions: [
            { attribute: 'user.country', operator: 'eq', values: ['FR'] },
            { attribute: 'plan', operator: 'in', values: ['pro', 'team'] },
          ],
          serve: { value: true },
        },
        {
          id: 'everyone-else-on-old-app',
          conditions: [{ attribute: 'appVersion', operator: 'semverLt', values: ['2.0.0'] }],
          serve: { value: false },
        },
      ],
    }),
  ]);

  test('an override wins over the rules', () => {
    assert.deepEqual(summary(set.evaluate('beta', { targetingKey: 'user-1' })), {
      key: 'beta',
      value: true,
      reason: 'TARGETING_MATCH',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('beta', { targetingKey: 'vip-1' })), {
      key: 'beta',
      value: false,
      reason: 'TARGETING_MATCH',
      fallbackClass: 'none',
    });
  });

  test('the first matching rule serves, with its id', () => {
    assert.deepEqual(summary(set.evaluate('beta', { targetingKey: 'vip-2', appVersion: '1.0.0' })), {
      key: 'beta',
      value: true,
      reason: 'TARGETING_MATCH',
      ruleId: 'vips',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('beta', { targetingKey: 'u', user: { country: 'FR' }, plan: 'team' })), {
      key: 'beta',
      value: true,
      reason: 'TARGETING_MATCH',
      ruleId: 'fr-pro',
      fallbackClass: 'none',
    });
    assert.equal(set.evaluate('beta', { targetingKey: 'u', appVersion: 'v1.9.0' }).ruleId, 'everyone-else-on-old-app');
  });

  test('every condition of a rule must hold', () => {
    assert.deepEqual(summary(set.evaluate('beta', { targetingKey: 'u', user: { country: 'FR' }, plan: 'free' })), {
      key: 'beta',
      value: false,
      reason: 'DEFAULT',
      fallbackClass: 'none',
    });
  });

  test('rules work without a targeting key', () => {
    assert.equal(set.evaluate('beta', { user: { country: 'FR' }, plan: 'pro' }).ruleId, 'fr-pro');
    assert.equal(set.evaluate('beta', { user: { country: 'FR' }, plan: 'pro' }).reason, 'TARGETING_MATCH');
  });

  test('nothing matching gives the value with reason DEFAULT', () => {
    assert.deepEqual(summary(set.evaluate('beta', {})), {
      key: 'beta',
      value: false,
      reason: 'DEFAULT',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('beta')), {
      key: 'beta',
      value: false,
      reason: 'DEFAULT',
      fallbackClass: 'none',
    });
  });

  test('a rule without conditions matches everyone', () => {
    const catchAll = compileFlagSet([
      flag({ key: 'f', rules: [{ id: 'all', conditions: [], serve: { value: true } }] }),
    ]);
    assert.equal(catchAll.evaluate('f', {}).value, true);
    assert.equal(catchAll.evaluate('f', {}).ruleId, 'all');
  });
});

describe('evaluate: variants', () => {
  const variants = [
    { key: 'control', value: 'blue', weight: 50 },
    { key: 'treatment', value: 'green', weight: 50 },
  ];
  const set = compileFlagSet([
    flag({
      key: 'color',
      type: 'string',
      value: 'grey',
      variants,
      rules: [
        {
          id: 'staff',
          conditions: [{ attribute: 'staff', operator: 'eq', values: [true] }],
          serve: { variant: 'treatment' },
        },
      ],
    }),
  ]);

  test('a rule can serve a variant', () => {
    assert.deepEqual(summary(set.evaluate('color', { staff: true })), {
      key: 'color',
      value: 'green',
      variant: 'treatment',
      reason: 'TARGETING_MATCH',
      ruleId: 'staff',
      fallbackClass: 'none',
    });
  });

  test('subjects are split by bucket of flagKey/targetingKey', () => {
    const { inside, outside } = keysAround('color', 5000);
    assert.deepEqual(summary(set.evaluate('color', { targetingKey: inside })), {
      key: 'color',
      value: 'blue',
      variant: 'control',
      reason: 'SPLIT',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('color', { targetingKey: outside })), {
      key: 'color',
      value: 'green',
      variant: 'treatment',
      reason: 'SPLIT',
      fallbackClass: 'none',
    });
  });

  test('without a targeting key the value is served with reason DEFAULT', () => {
    const expected = { key: 'color', value: 'grey', reason: 'DEFAULT', fallbackClass: 'targeting_key_missing' };
    assert.deepEqual(summary(set.evaluate('color', {})), expected);
    assert.deepEqual(summary(set.evaluate('color', { targetingKey: '' })), expected);
    assert.deepEqual(summary(set.evaluate('color', { targetingKey: null } as never)), expected);
  });
});

describe('evaluate: rollouts', () => {
  test('a flag rollout serves rollout.value below the threshold, value above, both SPLIT', () => {
    const set = compileFlagSet([flag({ key: 'ramp', rollout: { percentage: 25, value: true } })]);
    const { inside, outside } = keysAround('ramp', 2500);
    assert.deepEqual(summary(set.evaluate('ramp', { targetingKey: inside })), {
      key: 'ramp',
      value: true,
      reason: 'SPLIT',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('ramp', { targetingKey: outside })), {
      key: 'ramp',
      value: false,
      reason: 'SPLIT',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('ramp', {})), {
      key: 'ramp',
      value: false,
      reason: 'DEFAULT',
      fallbackClass: 'targeting_key_missing',
    });
  });

  test('0 % takes nobody and 100 % everybody', () => {
    const set = compileFlagSet([
      flag({ key: 'none', rollout: { percentage: 0, value: true } }),
      flag({ key: 'all', rollout: { percentage: 100, value: true } }),
    ]);
    for (let i = 0; i < 500; i++) {
      assert.equal(set.evaluate('none', { targetingKey: `k${i}` }).value, false);
      assert.equal(set.evaluate('all', { targetingKey: `k${i}` }).value, true);
    }
  });

  test('the salt replaces the flag key in the bucket', () => {
    const set = compileFlagSet([flag({ key: 'salted', rollout: { percentage: 50, value: true, salt: 'shared-exp' } })]);
    const { inside, outside } = keysAround('shared-exp', 5000);
    assert.equal(set.evaluate('salted', { targetingKey: inside }).value, true);
    assert.equal(set.evaluate('salted', { targetingKey: outside }).value, false);
  });

  test('a rule rollout answers TARGETING_MATCH with the rule id on both sides', () => {
    const set = compileFlagSet([
      flag({
        key: 'gradual',
        rules: [
          {
            id: 'eu',
            conditions: [{ attribute: 'region', operator: 'eq', values: ['eu'] }],
            serve: { rollout: { percentage: 10, value: true } },
          },
        ],
      }),
    ]);
    const { inside, outside } = keysAround('gradual', 1000);
    assert.deepEqual(summary(set.evaluate('gradual', { targetingKey: inside, region: 'eu' })), {
      key: 'gradual',
      value: true,
      reason: 'TARGETING_MATCH',
      ruleId: 'eu',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('gradual', { targetingKey: outside, region: 'eu' })), {
      key: 'gradual',
      value: false,
      reason: 'TARGETING_MATCH',
      ruleId: 'eu',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('gradual', { region: 'eu' })), {
      key: 'gradual',
      value: false,
      reason: 'DEFAULT',
      ruleId: 'eu',
      fallbackClass: 'targeting_key_missing',
    });
    assert.deepEqual(summary(set.evaluate('gradual', { targetingKey: inside, region: 'us' })), {
      key: 'gradual',
      value: false,
      reason: 'DEFAULT',
      fallbackClass: 'none',
    });
  });
});

describe('evaluate: dependencies', () => {
  const set = compileFlagSet([
    flag({
      key: 'kill-switch',
      value: false,
      rules: [
        {
          id: 'off-in-test',
          conditions: [{ attribute: 'env', operator: 'eq', values: ['test'] }],
          serve: { value: true },
        },
      ],
    }),
    flag({ key: 'payments', value: true }),
    flag({ key: 'layout', type: 'json', value: { cols: 2 } }),
    flag({
      key: 'checkout',
      value: false,
      overrides: { 'user-1': true },
      rules: [{ id: 'all', conditions: [], serve: { value: true } }],
      dependencies: [
        { flag: 'kill-switch', value: false },
        { flag: 'payments', value: true },
        { flag: 'layout', value: { cols: 2 } },
      ],
    }),
    flag({
      key: 'upsell',
      value: false,
      rules: [{ id: 'all', conditions: [], serve: { value: true } }],
      dependencies: [{ flag: 'checkout', value: true }],
    }),
  ]);

  test('met prerequisites let targeting run', () => {
    assert.deepEqual(summary(set.evaluate('checkout', { targetingKey: 'u', env: 'prod' })), {
      key: 'checkout',
      value: true,
      reason: 'TARGETING_MATCH',
      ruleId: 'all',
      fallbackClass: 'none',
    });
  });

  test('a prerequisite is evaluated with the same context', () => {
    assert.deepEqual(summary(set.evaluate('checkout', { targetingKey: 'u', env: 'test' })), {
      key: 'checkout',
      value: false,
      reason: 'DISABLED',
      fallbackClass: 'dependency_unmet',
    });
  });

  test('an unmet prerequisite also stops overrides', () => {
    assert.equal(set.evaluate('checkout', { targetingKey: 'user-1', env: 'test' }).reason, 'DISABLED');
    assert.equal(set.evaluate('checkout', { targetingKey: 'user-1', env: 'prod' }).reason, 'TARGETING_MATCH');
  });

  test('chains propagate', () => {
    assert.equal(set.evaluate('upsell', { env: 'prod' }).value, true);
    assert.deepEqual(summary(set.evaluate('upsell', { env: 'test' })), {
      key: 'upsell',
      value: false,
      reason: 'DISABLED',
      fallbackClass: 'dependency_unmet',
    });
  });

  test('JSON prerequisite values compare by deep equality, ignoring key order', () => {
    const json = compileFlagSet([
      flag({ key: 'cfg', type: 'json', value: { a: 1, b: [1, { c: null }] } }),
      flag({ key: 'x', value: true, dependencies: [{ flag: 'cfg', value: { b: [1, { c: null }], a: 1 } }] }),
      flag({ key: 'y', value: true, dependencies: [{ flag: 'cfg', value: { a: 1, b: [{ c: null }, 1] } }] }),
    ]);
    assert.equal(json.evaluate('x').reason, 'DEFAULT');
    assert.equal(json.evaluate('y').reason, 'DISABLED');
  });

  test('a flag with only met prerequisites is DEFAULT, not STATIC', () => {
    const only = compileFlagSet([
      flag({ key: 'a', value: true }),
      flag({ key: 'b', value: true, dependencies: [{ flag: 'a', value: true }] }),
    ]);
    assert.deepEqual(summary(only.evaluate('b')), { key: 'b', value: true, reason: 'DEFAULT', fallbackClass: 'none' });
  });
});

describe('evaluate: the off switch', () => {
  const { inside } = keysAround('ramp', 5_000);
  const set = compileFlagSet([
    flag({ key: 'gate', value: true }),
    flag({
      key: 'checkout',
      type: 'string',
      value: 'new',
      enabled: false,
      offValue: 'legacy',
      overrides: { 'user-1': 'vip' },
      rules: [{ id: 'all', conditions: [], serve: { value: 'ruled' } }],
      dependencies: [{ flag: 'gate', value: false }],
    }),
    flag({ key: 'ramp', rollout: { percentage: 100, value: true }, enabled: false, offValue: false }),
    flag({
      key: 'split',
      type: 'string',
      value: 'x',
      enabled: false,
      offValue: 'off',
      variants: [{ key: 'a', value: 'a', weight: 100 }],
    }),
    flag({
      key: 'child',
      dependencies: [{ flag: 'checkout', value: 'legacy' }],
      rules: [{ id: 'on', conditions: [], serve: { value: true } }],
    }),
  ]);

  test('a disabled flag serves its off value with reason DISABLED, before prerequisites, overrides, rules, rollouts and variants', () => {
    const off = { key: 'checkout', value: 'legacy', reason: 'DISABLED', fallbackClass: 'none' };
    assert.deepEqual(summary(set.evaluate('checkout')), off);
    assert.deepEqual(summary(set.evaluate('checkout', { targetingKey: 'user-1' })), off);
    assert.deepEqual(summary(set.evaluate('ramp', { targetingKey: inside })), {
      key: 'ramp',
      value: false,
      reason: 'DISABLED',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('split', { targetingKey: 'u' })), {
      key: 'split',
      value: 'off',
      reason: 'DISABLED',
      fallbackClass: 'none',
    });
  });

  test('a flag that depends on a disabled flag sees its off value', () => {
    assert.deepEqual(summary(set.evaluate('child', { targetingKey: 'u' })), {
      key: 'child',
      value: true,
      reason: 'TARGETING_MATCH',
      ruleId: 'on',
      fallbackClass: 'none',
    });
  });

  test('the type check still applies to a disabled flag', () => {
    assert.equal(set.evaluate('checkout', {}, 'bool').errorCode, 'TYPE_MISMATCH');
  });

  test('a definition without the fields (stored before they existed) is enabled', () => {
    const { enabled: _e, offValue: _o, ...old } = flag({ key: 'old', value: true });
    assert.deepEqual(summary(compileFlagSet([old as FlagDefinition]).evaluate('old')), {
      key: 'old',
      value: true,
      reason: 'STATIC',
      fallbackClass: 'none',
    });
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectIssue, issuesOf } from '../test/flag-definition-issues.js';

// What a flag serves without rules: its rollout, and its variants and their weights.

describe('validateFlagDefinition: rollout', () => {
  test('null is fine', () => assert.deepEqual(issuesOf({ rollout: null }), []));
  test('is an object', () => {
    expectIssue({ rollout: 50 }, '/rollout', 'rollout must be an object (got a number)', 'invalid_type');
  });
  test('percentage is 0..100 with at most two decimals', () => {
    for (const percentage of [0, 0.01, 12.34, 99.99, 100])
      assert.deepEqual(issuesOf({ rollout: { percentage, value: true } }), [], String(percentage));
    for (const percentage of [-1, 100.01, 12.345, Infinity]) {
      expectIssue(
        { rollout: { percentage, value: true } },
        '/rollout/percentage',
        `rollout.percentage must be a number between 0 and 100 with at most two decimals (got ${percentage})`,
        'out_of_range',
      );
    }
    expectIssue(
      { rollout: { percentage: '50', value: true } },
      '/rollout/percentage',
      'rollout.percentage must be a number between 0 and 100 with at most two decimals (got a string)',
      'out_of_range',
    );
    expectIssue(
      { rollout: { value: true } },
      '/rollout/percentage',
      'rollout.percentage must be a number between 0 and 100 with at most two decimals (got nothing)',
      'required',
    );
  });
  test('value has the flag type', () => {
    expectIssue(
      { rollout: { percentage: 5, value: 1 } },
      '/rollout/value',
      'rollout.value must be a boolean for a flag of type bool (got a number)',
      'type_mismatch',
    );
    expectIssue(
      { rollout: { percentage: 5 } },
      '/rollout/value',
      'rollout.value is required (a boolean for a flag of type bool)',
      'required',
    );
  });
  test('salt is an optional non-empty string', () => {
    assert.deepEqual(issuesOf({ rollout: { percentage: 5, value: true, salt: 'exp-1' } }), []);
    expectIssue(
      { rollout: { percentage: 5, value: true, salt: '' } },
      '/rollout/salt',
      'rollout.salt must be a string of 1 to 256 characters when given (got 0 characters)',
      'invalid_salt',
    );
    expectIssue(
      { rollout: { percentage: 5, value: true, salt: 3 } },
      '/rollout/salt',
      'rollout.salt must be a string of 1 to 256 characters when given (got a number)',
      'invalid_salt',
    );
  });
  test('unknown fields are rejected', () => {
    expectIssue(
      { rollout: { percentage: 5, value: true, seed: 1 } },
      '/rollout/seed',
      'rollout.seed is not a known field (expected one of: percentage, value, salt)',
      'unknown_field',
    );
  });
  test('cannot be combined with variants', () => {
    expectIssue(
      { rollout: { percentage: 5, value: true }, variants: [{ key: 'on', value: true, weight: 100 }] },
      '/variants',
      'variants cannot be set together with rollout: a flag splits subjects either by a percentage rollout or across variants; set the other to null',
      'rollout_variants_exclusive',
    );
  });
});

describe('validateFlagDefinition: variants', () => {
  const variants = (...list: unknown[]) => ({ variants: list });
  test('null is fine', () => assert.deepEqual(issuesOf({ variants: null }), []));
  test('is a non-empty array', () => {
    expectIssue(
      { variants: {} },
      '/variants',
      'variants must be null or an array of variants (got an object)',
      'invalid_type',
    );
    expectIssue(
      { variants: [] },
      '/variants',
      'variants must hold at least one variant, or be null for a flag without variants',
      'invalid_variants',
    );
  });
  test('each variant is an object with known fields', () => {
    expectIssue(variants('on'), '/variants/0', 'variants[0] must be an object (got a string)', 'invalid_type');
    expectIssue(
      variants({ key: 'on', value: true, weight: 100, label: 'x' }),
      '/variants/0/label',
      'variants[0].label is not a known field (expected one of: key, value, weight)',
      'unknown_field',
    );
  });
  test('keys follow the flag key charset and are unique', () => {
    expectIssue(
      variants({ key: 'o n', value: true, weight: 100 }),
      '/variants/0/key',
      'variants[0].key must use only letters, digits and . _ - : and start with a letter or digit (got "o n")',
      'invalid_key',
    );
    expectIssue(
      variants({ key: 'on', value: true, weight: 50 }, { key: 'on', value: false, weight: 50 }),
      '/variants/1/key',
      'variants[1].key repeats the variant key "on"; variant keys must be unique',
      'duplicate',
    );
  });
  test('values have the flag type', () => {
    expectIssue(
      variants({ key: 'on', value: 'true', weight: 100 }),
      '/variants/0/value',
      'variants[0].value must be a boolean for a flag of type bool (got a string)',
      'type_mismatch',
    );
  });
  test('weights are 0..100 with two decimals', () => {
    expectIssue(
      variants({ key: 'a', value: true, weight: 100.5 }),
      '/variants/0/weight',
      'variants[0].weight must be a weight between 0 and 100 with at most two decimals (got 100.5)',
      'out_of_range',
    );
    expectIssue(
      variants({ key: 'a', value: true, weight: 0.005 }, { key: 'b', value: false, weight: 99.99 }),
      '/variants/0/weight',
      'variants[0].weight must be a weight between 0 and 100 with at most two decimals (got 0.005)',
      'out_of_range',
    );
    assert.equal(issuesOf(variants({ key: 'a', value: true })).length, 1);
  });
  test('weights sum to 100, tolerating float error', () => {
    assert.deepEqual(
      issuesOf(
        variants(
          { key: 'a', value: true, weight: 33.33 },
          { key: 'b', value: false, weight: 33.33 },
          { key: 'c', value: true, weight: 33.34 },
        ),
      ),
      [],
    );
    assert.deepEqual(
      issuesOf(
        variants(
          { key: 'a', value: true, weight: 0.1 },
          { key: 'b', value: false, weight: 0.2 },
          { key: 'c', value: true, weight: 99.7 },
        ),
      ),
      [],
    );
    expectIssue(
      variants({ key: 'a', value: true, weight: 50 }, { key: 'b', value: false, weight: 49.99 }),
      '/variants',
      'variants must have weights summing to 100 (they sum to 99.99)',
      'weights_sum',
    );
  });
});

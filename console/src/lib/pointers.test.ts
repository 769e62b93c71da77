import { describe, expect, test } from 'vitest';
import { flagRelativePointer, issuesByField, pointerTokens } from './pointers';

const FIELDS = [
  'key',
  'type',
  'value',
  'offValue',
  'rules',
  'rollout',
  'variants',
  'overrides',
  'dependencies',
  'metadata',
];

describe('JSON pointers of validation issues', () => {
  test('tokens are decoded (~1 is /, ~0 is ~)', () => {
    expect(pointerTokens('/overrides/user~1a~0b/0')).toEqual(['overrides', 'user/a~b', '0']);
    expect(pointerTokens('')).toEqual([]);
  });

  test('every write path maps onto the flag: PATCH, impact (advanced and values) and a proposal', () => {
    expect(flagRelativePointer('/rules/0/conditions/1/operator', 'checkout')).toBe('/rules/0/conditions/1/operator');
    expect(flagRelativePointer('/changes/advanced/flags/checkout/rules/0', 'checkout')).toBe('/rules/0');
    expect(flagRelativePointer('/changes/flags/checkout', 'checkout')).toBe('/value');
    expect(flagRelativePointer('/change/body/variants', 'checkout')).toBe('/variants');
    expect(flagRelativePointer('/changes/advanced/flags/other/rules', 'checkout')).toBe(
      '/changes/advanced/flags/other/rules',
    );
  });

  test('issues land at the field their pointer names, with where inside it, and the rest on the form', () => {
    const byField = issuesByField(
      [
        { path: '/rules/0/conditions/0/operator', message: 'must be one of: in, notIn' },
        { path: '/changes/advanced/flags/f/variants', message: 'weights must sum to 100' },
        { path: '/colour', message: 'is not allowed' },
      ],
      'f',
      FIELDS,
    );
    expect(byField.get('rules')).toEqual([
      { field: 'rules', where: '[0].conditions[0].operator', message: 'must be one of: in, notIn' },
    ]);
    expect(byField.get('variants')).toEqual([{ field: 'variants', where: '', message: 'weights must sum to 100' }]);
    expect(byField.get('')).toEqual([{ field: '', where: '/colour', message: 'is not allowed' }]);
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlagDefinition, validateFlagDefinition } from './validate.js';
import type { ValidationIssue } from './validation-issue.js';

const base = { key: 'new-checkout', type: 'bool', value: false };

function issuesOf(patch: Record<string, unknown>, knownFlagKeys?: string[]): ValidationIssue[] {
  return validateFlagDefinition({ ...base, ...patch }, knownFlagKeys);
}

/** Asserts the definition has exactly this one issue. */
function expectIssue(patch: Record<string, unknown>, path: string, message: string, code: string): void {
  assert.deepEqual(issuesOf(patch), [{ path, message, code }]);
}

function rule(overrides: Record<string, unknown> = {}) {
  return { id: 'r1', conditions: [], serve: { value: true }, ...overrides };
}
function condition(operator: string, values: unknown, attribute: unknown = 'plan') {
  return rule({ conditions: [{ attribute, operator, values }] });
}
const VALUES = '/rules/0/conditions/0/values';

describe('validateFlagDefinition: valid definitions', () => {
  test('a minimal flag of each type', () => {
    assert.deepEqual(validateFlagDefinition(base), []);
    assert.deepEqual(validateFlagDefinition({ key: 's', type: 'string', value: 'x' }), []);
    assert.deepEqual(validateFlagDefinition({ key: 'n', type: 'number', value: -1.5 }), []);
    assert.deepEqual(validateFlagDefinition({ key: 'j', type: 'json', value: null }), []);
    assert.deepEqual(validateFlagDefinition({ key: 'j', type: 'json', value: { a: [1, 'b', null] } }), []);
  });

  test('a complete flag with every feature', () => {
    const flag = {
      key: 'checkout:v2.beta_1',
      type: 'string',
      value: 'control',
      clientEnabled: true,
      description: 'New checkout',
      rollout: null,
      variants: [
        { key: 'control', value: 'control', weight: 33.33 },
        { key: 'a', value: 'A', weight: 33.33 },
        { key: 'b', value: 'B', weight: 33.34 },
      ],
      rules: [
        { id: 'staff', description: 'employees', conditions: [{ attribute: 'email', operator: 'endsWith', values: ['@acme.com'] }], serve: { variant: 'a' } },
        { id: 'mobile', conditions: [{ attribute: 'app.version', operator: 'semverGt', values: ['v2.0.0'] }], serve: { rollout: { percentage: 12.5, value: 'B', salt: 'm' } } },
        { id: 'all', conditions: [], serve: { value: 'control' } },
      ],
      overrides: { 'user-42': 'B' },
      dependencies: [{ flag: 'kill-switch', value: false }],
      metadata: { owner: 'payments', tags: ['checkout'] },
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
    };
    assert.deepEqual(validateFlagDefinition(flag, ['kill-switch', 'checkout:v2.beta_1']), []);
  });

  test('every operator with well-typed values', () => {
    const ok: Array<[string, unknown[]]> = [
      ['in', ['a', 1, true]], ['notIn', ['a']], ['eq', [1]], ['neq', [false]],
      ['contains', ['a']], ['notContains', ['a']], ['startsWith', ['a']], ['endsWith', ['a']],
      ['matches', ['^a+$']], ['lt', [1]], ['lte', [1.5]], ['gt', [-1]], ['gte', [0]],
      ['semverEq', ['1.0.0']], ['semverLt', ['v2.0.0-rc.1']], ['semverGt', ['1.0.0+build']],
      ['before', ['2026-01-01T00:00:00Z']], ['after', ['2026-01-01T00:00:00.000+02:00']],
      ['exists', []], ['notExists', []],
    ];
    for (const [operator, values] of ok) assert.deepEqual(issuesOf({ rules: [condition(operator, values)] }), [], operator);
  });
});

describe('validateFlagDefinition: the definition itself', () => {
  test('must be an object', () => {
    assert.deepEqual(validateFlagDefinition([]), [{ path: '', message: 'the flag definition must be an object (got an array)', code: 'invalid_type' }]);
    assert.deepEqual(validateFlagDefinition(null), [{ path: '', message: 'the flag definition must be an object (got null)', code: 'invalid_type' }]);
  });

  test('unknown fields are rejected', () => {
    expectIssue({ enabled: true }, '/enabled',
      'enabled is not a known field (expected one of: key, type, value, clientEnabled, description, rollout, variants, rules, overrides, dependencies, metadata, createdAt, updatedAt)',
      'unknown_field');
  });
});

describe('validateFlagDefinition: key', () => {
  test('is required', () => {
    assert.deepEqual(validateFlagDefinition({ type: 'bool', value: true }), [
      { path: '/key', message: 'key must be a non-empty string (got nothing)', code: 'required' },
    ]);
  });
  test('is a non-empty string', () => {
    expectIssue({ key: '' }, '/key', 'key must be a non-empty string (got a string)', 'invalid_key');
    expectIssue({ key: 7 }, '/key', 'key must be a non-empty string (got a number)', 'invalid_key');
  });
  test('is at most 128 characters', () => {
    assert.deepEqual(issuesOf({ key: 'k'.repeat(128) }), []);
    expectIssue({ key: 'k'.repeat(129) }, '/key', 'key must be at most 128 characters (got 129)', 'invalid_key');
  });
  test('uses the allowed charset and starts with a letter or digit', () => {
    for (const key of ['-lead', '.lead', 'has space', 'slash/key', 'ünï', '$rollout']) {
      expectIssue({ key }, '/key', `key must use only letters, digits and . _ - : and start with a letter or digit (got ${JSON.stringify(key)})`, 'invalid_key');
    }
    assert.deepEqual(issuesOf({ key: '9a.b_c-d:e' }), []);
  });
});

describe('validateFlagDefinition: type and value', () => {
  test('type is one of the four', () => {
    expectIssue({ type: 'boolean' }, '/type', 'type must be one of bool, string, number, json (got "boolean")', 'invalid_type');
    assert.deepEqual(validateFlagDefinition({ key: 'k', value: 1 }), [
      { path: '/type', message: 'type must be one of bool, string, number, json (got nothing)', code: 'required' },
    ]);
  });
  test('value is required', () => {
    assert.deepEqual(validateFlagDefinition({ key: 'k', type: 'bool' }), [
      { path: '/value', message: 'value is required (a boolean for a flag of type bool)', code: 'required' },
    ]);
  });
  test('bool takes a boolean', () => {
    expectIssue({ value: 'false' }, '/value', 'value must be a boolean for a flag of type bool (got a string)', 'type_mismatch');
  });
  test('string takes a string of at most 32 KiB', () => {
    expectIssue({ type: 'string', value: 1 }, '/value', 'value must be a string for a flag of type string (got a number)', 'type_mismatch');
    assert.deepEqual(issuesOf({ type: 'string', value: 'x'.repeat(32 * 1024) }), []);
    expectIssue({ type: 'string', value: 'x'.repeat(32 * 1024 + 1) }, '/value', 'value must be at most 32 KiB (32768 bytes) of UTF-8', 'too_large');
    // Bytes, not characters: é is two bytes of UTF-8.
    expectIssue({ type: 'string', value: 'é'.repeat(16 * 1024 + 1) }, '/value', 'value must be at most 32 KiB (32768 bytes) of UTF-8', 'too_large');
  });
  test('number takes a finite number', () => {
    expectIssue({ type: 'number', value: '1' }, '/value', 'value must be a finite number for a flag of type number (got a string)', 'type_mismatch');
    expectIssue({ type: 'number', value: Infinity }, '/value', 'value must be a finite number for a flag of type number (got Infinity)', 'type_mismatch');
    expectIssue({ type: 'number', value: NaN }, '/value', 'value must be a finite number for a flag of type number (got NaN)', 'type_mismatch');
  });
  test('json takes any JSON value of at most 32 KiB serialised', () => {
    expectIssue({ type: 'json', value: { a: NaN } }, '/value',
      'value must be a JSON value (no NaN, Infinity, undefined or nesting beyond 64 levels)', 'type_mismatch');
    expectIssue({ type: 'json', value: { a: 'x'.repeat(32 * 1024) } }, '/value',
      'value must be at most 32 KiB (32768 bytes) when serialised as JSON', 'too_large');
  });
  test('with an invalid type the values are not checked against it', () => {
    assert.deepEqual(issuesOf({ type: 'nope', value: 1, rollout: { percentage: 5, value: 'x' } }).map((i) => i.path), ['/type']);
  });
});

describe('validateFlagDefinition: simple fields', () => {
  test('clientEnabled is a boolean', () => {
    expectIssue({ clientEnabled: 'yes' }, '/clientEnabled', 'clientEnabled must be a boolean (got a string)', 'invalid_type');
  });
  test('description is a string of at most 1024 characters', () => {
    expectIssue({ description: 5 }, '/description', 'description must be a string (got a number)', 'invalid_type');
    expectIssue({ description: 'd'.repeat(1025) }, '/description', 'description must be at most 1024 characters (got 1025)', 'too_long');
  });
  test('metadata is a JSON object of at most 4 KiB', () => {
    expectIssue({ metadata: [] }, '/metadata', 'metadata must be a JSON object (got an array)', 'invalid_type');
    expectIssue({ metadata: { a: Infinity } }, '/metadata', 'metadata must hold only JSON values (no NaN, Infinity or undefined)', 'invalid_type');
    assert.deepEqual(issuesOf({ metadata: { a: 'x'.repeat(4096 - 8) } }), []);
    expectIssue({ metadata: { a: 'x'.repeat(4096) } }, '/metadata',
      'metadata must be at most 4 KiB (4096 bytes) when serialised as JSON (got 4104 bytes)', 'too_large');
  });
});

describe('validateFlagDefinition: rollout', () => {
  test('null is fine', () => assert.deepEqual(issuesOf({ rollout: null }), []));
  test('is an object', () => {
    expectIssue({ rollout: 50 }, '/rollout', 'rollout must be an object (got a number)', 'invalid_type');
  });
  test('percentage is 0..100 with at most two decimals', () => {
    for (const percentage of [0, 0.01, 12.34, 99.99, 100]) assert.deepEqual(issuesOf({ rollout: { percentage, value: true } }), [], String(percentage));
    for (const percentage of [-1, 100.01, 12.345, Infinity]) {
      expectIssue({ rollout: { percentage, value: true } }, '/rollout/percentage',
        `rollout.percentage must be a number between 0 and 100 with at most two decimals (got ${percentage})`, 'out_of_range');
    }
    expectIssue({ rollout: { percentage: '50', value: true } }, '/rollout/percentage',
      'rollout.percentage must be a number between 0 and 100 with at most two decimals (got a string)', 'out_of_range');
    expectIssue({ rollout: { value: true } }, '/rollout/percentage',
      'rollout.percentage must be a number between 0 and 100 with at most two decimals (got nothing)', 'required');
  });
  test('value has the flag type', () => {
    expectIssue({ rollout: { percentage: 5, value: 1 } }, '/rollout/value', 'rollout.value must be a boolean for a flag of type bool (got a number)', 'type_mismatch');
    expectIssue({ rollout: { percentage: 5 } }, '/rollout/value', 'rollout.value is required (a boolean for a flag of type bool)', 'required');
  });
  test('salt is an optional non-empty string', () => {
    assert.deepEqual(issuesOf({ rollout: { percentage: 5, value: true, salt: 'exp-1' } }), []);
    expectIssue({ rollout: { percentage: 5, value: true, salt: '' } }, '/rollout/salt',
      'rollout.salt must be a string of 1 to 256 characters when given (got 0 characters)', 'invalid_salt');
    expectIssue({ rollout: { percentage: 5, value: true, salt: 3 } }, '/rollout/salt',
      'rollout.salt must be a string of 1 to 256 characters when given (got a number)', 'invalid_salt');
  });
  test('unknown fields are rejected', () => {
    expectIssue({ rollout: { percentage: 5, value: true, seed: 1 } }, '/rollout/seed',
      'rollout.seed is not a known field (expected one of: percentage, value, salt)', 'unknown_field');
  });
  test('cannot be combined with variants', () => {
    expectIssue({ rollout: { percentage: 5, value: true }, variants: [{ key: 'on', value: true, weight: 100 }] }, '/variants',
      'variants cannot be set together with rollout: a flag splits subjects either by a percentage rollout or across variants; set the other to null',
      'rollout_variants_exclusive');
  });
});

describe('validateFlagDefinition: variants', () => {
  const variants = (...list: unknown[]) => ({ variants: list });
  test('null is fine', () => assert.deepEqual(issuesOf({ variants: null }), []));
  test('is a non-empty array', () => {
    expectIssue({ variants: {} }, '/variants', 'variants must be null or an array of variants (got an object)', 'invalid_type');
    expectIssue({ variants: [] }, '/variants', 'variants must hold at least one variant, or be null for a flag without variants', 'invalid_variants');
  });
  test('each variant is an object with known fields', () => {
    expectIssue(variants('on'), '/variants/0', 'variants[0] must be an object (got a string)', 'invalid_type');
    expectIssue(variants({ key: 'on', value: true, weight: 100, label: 'x' }), '/variants/0/label',
      'variants[0].label is not a known field (expected one of: key, value, weight)', 'unknown_field');
  });
  test('keys follow the flag key charset and are unique', () => {
    expectIssue(variants({ key: 'o n', value: true, weight: 100 }), '/variants/0/key',
      'variants[0].key must use only letters, digits and . _ - : and start with a letter or digit (got "o n")', 'invalid_key');
    expectIssue(variants({ key: 'on', value: true, weight: 50 }, { key: 'on', value: false, weight: 50 }), '/variants/1/key',
      'variants[1].key repeats the variant key "on"; variant keys must be unique', 'duplicate');
  });
  test('values have the flag type', () => {
    expectIssue(variants({ key: 'on', value: 'true', weight: 100 }), '/variants/0/value',
      'variants[0].value must be a boolean for a flag of type bool (got a string)', 'type_mismatch');
  });
  test('weights are 0..100 with two decimals', () => {
    expectIssue(variants({ key: 'a', value: true, weight: 100.5 }), '/variants/0/weight',
      'variants[0].weight must be a weight between 0 and 100 with at most two decimals (got 100.5)', 'out_of_range');
    expectIssue(variants({ key: 'a', value: true, weight: 0.005 }, { key: 'b', value: false, weight: 99.99 }), '/variants/0/weight',
      'variants[0].weight must be a weight between 0 and 100 with at most two decimals (got 0.005)', 'out_of_range');
    assert.equal(issuesOf(variants({ key: 'a', value: true })).length, 1);
  });
  test('weights sum to 100, tolerating float error', () => {
    assert.deepEqual(issuesOf(variants(
      { key: 'a', value: true, weight: 33.33 }, { key: 'b', value: false, weight: 33.33 }, { key: 'c', value: true, weight: 33.34 })), []);
    assert.deepEqual(issuesOf(variants(
      { key: 'a', value: true, weight: 0.1 }, { key: 'b', value: false, weight: 0.2 }, { key: 'c', value: true, weight: 99.7 })), []);
    expectIssue(variants({ key: 'a', value: true, weight: 50 }, { key: 'b', value: false, weight: 49.99 }), '/variants',
      'variants must have weights summing to 100 (they sum to 99.99)', 'weights_sum');
  });
});

describe('validateFlagDefinition: rules', () => {
  test('is an array', () => {
    expectIssue({ rules: {} }, '/rules', 'rules must be an array of rules (got an object)', 'invalid_type');
  });
  test('each rule is an object with known fields', () => {
    expectIssue({ rules: [1] }, '/rules/0', 'rules[0] must be an object (got a number)', 'invalid_type');
    expectIssue({ rules: [rule({ when: [] })] }, '/rules/0/when',
      'rules[0].when is not a known field (expected one of: id, description, conditions, serve)', 'unknown_field');
  });
  test('ids are unique non-empty strings of the key charset', () => {
    expectIssue({ rules: [rule({ id: '' })] }, '/rules/0/id', 'rules[0].id must be a non-empty string (got a string)', 'invalid_key');
    expectIssue({ rules: [rule({ id: undefined })] }, '/rules/0/id', 'rules[0].id must be a non-empty string (got nothing)', 'required');
    expectIssue({ rules: [rule({ id: '$rollout' })] }, '/rules/0/id',
      'rules[0].id must use only letters, digits and . _ - : and start with a letter or digit (got "$rollout")', 'invalid_key');
    expectIssue({ rules: [rule(), rule()] }, '/rules/1/id', 'rules[1].id repeats the id "r1" of rules[0]; rule ids must be unique', 'duplicate');
  });
  test('description is an optional string', () => {
    expectIssue({ rules: [rule({ description: 1 })] }, '/rules/0/description', 'rules[0].description must be a string (got a number)', 'invalid_type');
  });
  test('conditions is an array of objects with known fields', () => {
    expectIssue({ rules: [rule({ conditions: undefined })] }, '/rules/0/conditions',
      'rules[0].conditions must be an array of conditions, empty to match every subject (got nothing)', 'required');
    expectIssue({ rules: [rule({ conditions: ['plan'] })] }, '/rules/0/conditions/0', 'rules[0].conditions[0] must be an object (got a string)', 'invalid_type');
    expectIssue({ rules: [rule({ conditions: [{ attribute: 'a', operator: 'exists', values: [], negate: true }] })] }, '/rules/0/conditions/0/negate',
      'rules[0].conditions[0].negate is not a known field (expected one of: attribute, operator, values)', 'unknown_field');
  });
  test('attribute is a non-empty dotted path', () => {
    expectIssue({ rules: [condition('exists', [], '')] }, '/rules/0/conditions/0/attribute',
      'rules[0].conditions[0].attribute must be a non-empty string', 'invalid_attribute');
    expectIssue({ rules: [condition('exists', [], 'user..id')] }, '/rules/0/conditions/0/attribute',
      'rules[0].conditions[0].attribute must be a dotted path without empty segments (like "user.country")', 'invalid_attribute');
  });
  test('operator is known', () => {
    expectIssue({ rules: [condition('like', ['a'])] }, '/rules/0/conditions/0/operator',
      'rules[0].conditions[0].operator must be one of in, notIn, contains, notContains, startsWith, endsWith, matches, eq, neq, lt, lte, gt, gte, semverEq, semverLt, semverGt, before, after, exists, notExists (got "like")',
      'unknown_operator');
  });
  test('values is an array', () => {
    expectIssue({ rules: [condition('in', 'pro')] }, VALUES, 'rules[0].conditions[0].values must be an array (got a string)', 'invalid_type');
    expectIssue({ rules: [condition('exists', undefined)] }, VALUES, 'rules[0].conditions[0].values must be an array (empty for exists) (got nothing)', 'required');
  });
  test('operators other than exists, notExists and matches need at least one value', () => {
    for (const operator of ['in', 'notIn', 'eq', 'neq', 'contains', 'notContains', 'startsWith', 'endsWith', 'lt', 'lte', 'gt', 'gte', 'semverEq', 'semverLt', 'semverGt', 'before', 'after']) {
      expectIssue({ rules: [condition(operator, [])] }, VALUES, `rules[0].conditions[0].values must hold at least one value for ${operator}`, 'invalid_values');
    }
  });
  test('in, notIn, eq, neq take scalars', () => {
    for (const operator of ['in', 'notIn', 'eq', 'neq']) {
      expectIssue({ rules: [condition(operator, ['a', null])] }, `${VALUES}/1`,
        `rules[0].conditions[0].values[1] must be a string, number or boolean for ${operator} (got null)`, 'invalid_values');
      expectIssue({ rules: [condition(operator, [['a']])] }, `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be a string, number or boolean for ${operator} (got an array)`, 'invalid_values');
    }
  });
  test('contains, notContains, startsWith, endsWith take strings', () => {
    for (const operator of ['contains', 'notContains', 'startsWith', 'endsWith']) {
      expectIssue({ rules: [condition(operator, [1])] }, `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be a string for ${operator} (got a number)`, 'invalid_values');
    }
  });
  test('lt, lte, gt, gte take finite numbers', () => {
    for (const operator of ['lt', 'lte', 'gt', 'gte']) {
      expectIssue({ rules: [condition(operator, ['10'])] }, `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be a finite number for ${operator} (got "10")`, 'invalid_values');
    }
  });
  test('semver operators take semantic versions', () => {
    for (const operator of ['semverEq', 'semverLt', 'semverGt']) {
      for (const version of ['1.2', ' 1.2.3', 'latest']) {
        expectIssue({ rules: [condition(operator, [version])] }, `${VALUES}/0`,
          `rules[0].conditions[0].values[0] must be a semantic version like "1.4.0" or "v2.0.0-beta.1" for ${operator} (got ${JSON.stringify(version)})`, 'invalid_values');
      }
    }
  });
  test('before and after take RFC 3339 timestamps', () => {
    for (const operator of ['before', 'after']) {
      for (const value of ['2026-01-01', '2026-02-30T00:00:00Z']) {
        expectIssue({ rules: [condition(operator, [value])] }, `${VALUES}/0`,
          `rules[0].conditions[0].values[0] must be an RFC 3339 timestamp like "2026-01-31T09:00:00Z" for ${operator} (got ${JSON.stringify(value)})`, 'invalid_values');
      }
      expectIssue({ rules: [condition(operator, [1767225600000])] }, `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be an RFC 3339 timestamp like "2026-01-31T09:00:00Z" for ${operator} (got a number)`, 'invalid_values');
    }
  });
  test('matches takes exactly one valid regular expression of at most 256 characters', () => {
    const exactlyOne = 'rules[0].conditions[0].values must hold exactly one string, the regular expression, for matches';
    expectIssue({ rules: [condition('matches', [])] }, VALUES, exactlyOne, 'invalid_values');
    expectIssue({ rules: [condition('matches', ['a', 'b'])] }, VALUES, exactlyOne, 'invalid_values');
    expectIssue({ rules: [condition('matches', [1])] }, VALUES, exactlyOne, 'invalid_values');
    assert.deepEqual(issuesOf({ rules: [condition('matches', ['a'.repeat(256)])] }), []);
    expectIssue({ rules: [condition('matches', ['a'.repeat(257)])] }, `${VALUES}/0`,
      'rules[0].conditions[0].values[0] must be a regular expression of at most 256 characters (got 257)', 'invalid_regex');
    expectIssue({ rules: [condition('matches', ['(unclosed'])] }, `${VALUES}/0`,
      'rules[0].conditions[0].values[0] is not a valid JavaScript regular expression: Invalid regular expression: /(unclosed/: Unterminated group', 'invalid_regex');
  });
  test('exists and notExists take no values', () => {
    for (const operator of ['exists', 'notExists']) {
      expectIssue({ rules: [condition(operator, ['x'])] }, VALUES, `rules[0].conditions[0].values must be empty: ${operator} takes no values`, 'invalid_values');
    }
  });
});

describe('validateFlagDefinition: rule serve', () => {
  const serve = (value: unknown, extra: Record<string, unknown> = {}) => ({ rules: [rule({ serve: value })], ...extra });
  test('is an object with exactly one of value, variant, rollout', () => {
    expectIssue(serve(undefined), '/rules/0/serve', 'rules[0].serve must be an object (got nothing)', 'required');
    expectIssue(serve({}), '/rules/0/serve', 'rules[0].serve must have exactly one of value, variant or rollout (got none)', 'invalid_serve');
    expectIssue(serve({ value: true, variant: 'on' }, { variants: [{ key: 'on', value: true, weight: 100 }] }), '/rules/0/serve',
      'rules[0].serve must have exactly one of value, variant or rollout (got value and variant)', 'invalid_serve');
    expectIssue(serve({ value: true, other: 1 }), '/rules/0/serve/other',
      'rules[0].serve.other is not a known field (expected one of: value, variant, rollout)', 'unknown_field');
  });
  test('value has the flag type', () => {
    expectIssue(serve({ value: 'yes' }), '/rules/0/serve/value', 'rules[0].serve.value must be a boolean for a flag of type bool (got a string)', 'type_mismatch');
    assert.deepEqual(validateFlagDefinition({ key: 'j', type: 'json', value: 1, rules: [rule({ serve: { value: null } })] }), []);
  });
  test('variant names an existing variant', () => {
    expectIssue(serve({ variant: 'on' }), '/rules/0/serve/variant', 'rules[0].serve.variant names variant "on" but the flag has no variants', 'unknown_variant');
    expectIssue(serve({ variant: 'off' }, { variants: [{ key: 'on', value: true, weight: 100 }] }), '/rules/0/serve/variant',
      'rules[0].serve.variant names variant "off", which is not one of the flag\'s variants (on)', 'unknown_variant');
    expectIssue(serve({ variant: 3 }), '/rules/0/serve/variant', "rules[0].serve.variant must be the key of one of the flag's variants (got a number)", 'invalid_type');
  });
  test('rollout has a percentage and a typed value', () => {
    assert.deepEqual(issuesOf(serve({ rollout: { percentage: 10, value: true } })), []);
    expectIssue(serve({ rollout: { percentage: 101, value: true } }), '/rules/0/serve/rollout/percentage',
      'rules[0].serve.rollout.percentage must be a number between 0 and 100 with at most two decimals (got 101)', 'out_of_range');
    expectIssue(serve({ rollout: { percentage: 10, value: 'x' } }), '/rules/0/serve/rollout/value',
      'rules[0].serve.rollout.value must be a boolean for a flag of type bool (got a string)', 'type_mismatch');
  });
});

describe('validateFlagDefinition: overrides', () => {
  test('is an object of targeting key to typed value', () => {
    assert.deepEqual(issuesOf({ overrides: { 'user-1': true, 'a/b~c': false } }), []);
    expectIssue({ overrides: [] }, '/overrides', 'overrides must be an object from targeting key to value (got an array)', 'invalid_type');
    expectIssue({ overrides: { 'user-1': 'on' } }, '/overrides/user-1', 'overrides["user-1"] must be a boolean for a flag of type bool (got a string)', 'type_mismatch');
  });
  test('pointers escape / and ~ in targeting keys', () => {
    expectIssue({ overrides: { 'a/b~c': 1 } }, '/overrides/a~1b~0c', 'overrides["a/b~c"] must be a boolean for a flag of type bool (got a number)', 'type_mismatch');
  });
  test('targeting keys have 1 to 256 characters', () => {
    expectIssue({ overrides: { '': true } }, '/overrides/', 'overrides[""] has a targeting key of 0 characters; targeting keys have 1 to 256', 'invalid_key');
  });
});

describe('validateFlagDefinition: dependencies', () => {
  test('is an array of {flag, value}', () => {
    assert.deepEqual(issuesOf({ dependencies: [{ flag: 'other', value: { deep: [1] } }] }), []);
    expectIssue({ dependencies: {} }, '/dependencies', 'dependencies must be an array of prerequisites (got an object)', 'invalid_type');
    expectIssue({ dependencies: [{ flag: 'other', value: true, not: 1 }] }, '/dependencies/0/not',
      'dependencies[0].not is not a known field (expected one of: flag, value)', 'unknown_field');
    expectIssue({ dependencies: [{ flag: 'other' }] }, '/dependencies/0/value',
      'dependencies[0].value is required: the value the prerequisite flag must evaluate to', 'required');
    expectIssue({ dependencies: [{ flag: '', value: true }] }, '/dependencies/0/flag', 'dependencies[0].flag must be a non-empty string (got a string)', 'invalid_key');
  });
  test('cannot name the flag itself', () => {
    expectIssue({ dependencies: [{ flag: 'new-checkout', value: true }] }, '/dependencies/0/flag',
      'dependencies[0].flag names the flag itself; a flag cannot be its own prerequisite', 'self_dependency');
  });
  test('lists each prerequisite once', () => {
    expectIssue({ dependencies: [{ flag: 'a', value: true }, { flag: 'a', value: false }] }, '/dependencies/1/flag',
      'dependencies[1].flag repeats the prerequisite "a"; list each prerequisite flag once', 'duplicate');
  });
  test('names a known flag when the known keys are given', () => {
    assert.deepEqual(issuesOf({ dependencies: [{ flag: 'a', value: true }] }, ['a']), []);
    assert.deepEqual(issuesOf({ dependencies: [{ flag: 'b', value: true }] }, ['a', 'new-checkout']), [
      { path: '/dependencies/0/flag', message: 'dependencies[0].flag names flag "b", which does not exist in this environment', code: 'unknown_dependency' },
    ]);
  });
});

describe('parseFlagDefinition', () => {
  test('fills in the defaults of optional fields', () => {
    assert.deepEqual(parseFlagDefinition(base), {
      ok: true,
      flag: {
        key: 'new-checkout', type: 'bool', value: false, clientEnabled: false, description: '', rollout: null,
        variants: null, rules: [], overrides: {}, dependencies: [], metadata: {},
      },
    });
  });
  test('returns the issues of an invalid definition', () => {
    const result = parseFlagDefinition({ ...base, value: 1 });
    assert.equal(result.ok, false);
    assert.deepEqual(!result.ok && result.issues.map((i) => i.path), ['/value']);
  });
});

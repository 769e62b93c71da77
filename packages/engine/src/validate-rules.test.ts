import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
// The main entry installs re2js for `matches` conditions (without it they do not validate).
import './index.js';
import { validateFlagDefinition } from './validate.js';
import type { ValidationIssue } from './validation-issue.js';

// Rules, conditions (operator by operator) and serve: validation of targeting.

const base = { key: 'new-checkout', type: 'bool', value: false };

function issuesOf(patch: Record<string, unknown>): ValidationIssue[] {
  return validateFlagDefinition({ ...base, ...patch });
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

describe('validateFlagDefinition: rules', () => {
  test('every operator with well-typed values', () => {
    const ok: Array<[string, unknown[]]> = [
      ['in', ['a', 1, true]],
      ['notIn', ['a']],
      ['eq', [1]],
      ['neq', [false]],
      ['contains', ['a']],
      ['notContains', ['a']],
      ['startsWith', ['a']],
      ['endsWith', ['a']],
      ['matches', ['^a+$']],
      ['lt', [1]],
      ['lte', [1.5]],
      ['gt', [-1]],
      ['gte', [0]],
      ['semverEq', ['1.0.0']],
      ['semverLt', ['v2.0.0-rc.1']],
      ['semverGt', ['1.0.0+build']],
      ['before', ['2026-01-01T00:00:00Z']],
      ['after', ['2026-01-01T00:00:00.000+02:00']],
      ['exists', []],
      ['notExists', []],
    ];
    for (const [operator, values] of ok)
      assert.deepEqual(issuesOf({ rules: [condition(operator, values)] }), [], operator);
  });

  test('is an array', () => {
    expectIssue({ rules: {} }, '/rules', 'rules must be an array of rules (got an object)', 'invalid_type');
  });
  test('each rule is an object with known fields', () => {
    expectIssue({ rules: [1] }, '/rules/0', 'rules[0] must be an object (got a number)', 'invalid_type');
    expectIssue(
      { rules: [rule({ when: [] })] },
      '/rules/0/when',
      'rules[0].when is not a known field (expected one of: id, description, conditions, serve)',
      'unknown_field',
    );
  });
  test('ids are unique non-empty strings of the key charset', () => {
    expectIssue(
      { rules: [rule({ id: '' })] },
      '/rules/0/id',
      'rules[0].id must be a non-empty string (got a string)',
      'invalid_key',
    );
    expectIssue(
      { rules: [rule({ id: undefined })] },
      '/rules/0/id',
      'rules[0].id must be a non-empty string (got nothing)',
      'required',
    );
    expectIssue(
      { rules: [rule({ id: '$rollout' })] },
      '/rules/0/id',
      'rules[0].id must use only letters, digits and . _ - : and start with a letter or digit (got "$rollout")',
      'invalid_key',
    );
    expectIssue(
      { rules: [rule(), rule()] },
      '/rules/1/id',
      'rules[1].id repeats the id "r1" of rules[0]; rule ids must be unique',
      'duplicate',
    );
  });
  test('description is an optional string', () => {
    expectIssue(
      { rules: [rule({ description: 1 })] },
      '/rules/0/description',
      'rules[0].description must be a string (got a number)',
      'invalid_type',
    );
  });
  test('conditions is an array of objects with known fields', () => {
    expectIssue(
      { rules: [rule({ conditions: undefined })] },
      '/rules/0/conditions',
      'rules[0].conditions must be an array of conditions, empty to match every subject (got nothing)',
      'required',
    );
    expectIssue(
      { rules: [rule({ conditions: ['plan'] })] },
      '/rules/0/conditions/0',
      'rules[0].conditions[0] must be an object (got a string)',
      'invalid_type',
    );
    expectIssue(
      { rules: [rule({ conditions: [{ attribute: 'a', operator: 'exists', values: [], negate: true }] })] },
      '/rules/0/conditions/0/negate',
      'rules[0].conditions[0].negate is not a known field (expected one of: attribute, operator, values)',
      'unknown_field',
    );
  });
  test('attribute is a non-empty dotted path', () => {
    expectIssue(
      { rules: [condition('exists', [], '')] },
      '/rules/0/conditions/0/attribute',
      'rules[0].conditions[0].attribute must be a non-empty string',
      'invalid_attribute',
    );
    expectIssue(
      { rules: [condition('exists', [], 'user..id')] },
      '/rules/0/conditions/0/attribute',
      'rules[0].conditions[0].attribute must be a dotted path without empty segments (like "user.country")',
      'invalid_attribute',
    );
  });
  test('operator is known', () => {
    expectIssue(
      { rules: [condition('like', ['a'])] },
      '/rules/0/conditions/0/operator',
      'rules[0].conditions[0].operator must be one of: in, notIn, contains, notContains, startsWith, endsWith, matches, eq, neq, lt, lte, gt, gte, semverEq, semverLt, semverGt, before, after, exists, notExists (got "like")',
      'unknown_operator',
    );
  });
  test('values is an array', () => {
    expectIssue(
      { rules: [condition('in', 'pro')] },
      VALUES,
      'rules[0].conditions[0].values must be an array (got a string)',
      'invalid_type',
    );
    expectIssue(
      { rules: [condition('exists', undefined)] },
      VALUES,
      'rules[0].conditions[0].values must be an array (empty for exists) (got nothing)',
      'required',
    );
  });
  test('operators other than exists, notExists and matches need at least one value', () => {
    for (const operator of [
      'in',
      'notIn',
      'eq',
      'neq',
      'contains',
      'notContains',
      'startsWith',
      'endsWith',
      'lt',
      'lte',
      'gt',
      'gte',
      'semverEq',
      'semverLt',
      'semverGt',
      'before',
      'after',
    ]) {
      expectIssue(
        { rules: [condition(operator, [])] },
        VALUES,
        `rules[0].conditions[0].values must hold at least one value for ${operator}`,
        'invalid_values',
      );
    }
  });
  test('in, notIn, eq, neq take scalars', () => {
    for (const operator of ['in', 'notIn', 'eq', 'neq']) {
      expectIssue(
        { rules: [condition(operator, ['a', null])] },
        `${VALUES}/1`,
        `rules[0].conditions[0].values[1] must be a string, number or boolean for ${operator} (got null)`,
        'invalid_values',
      );
      expectIssue(
        { rules: [condition(operator, [['a']])] },
        `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be a string, number or boolean for ${operator} (got an array)`,
        'invalid_values',
      );
    }
  });
  test('contains, notContains, startsWith, endsWith take strings', () => {
    for (const operator of ['contains', 'notContains', 'startsWith', 'endsWith']) {
      expectIssue(
        { rules: [condition(operator, [1])] },
        `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be a string for ${operator} (got a number)`,
        'invalid_values',
      );
    }
  });
  test('lt, lte, gt, gte take finite numbers', () => {
    for (const operator of ['lt', 'lte', 'gt', 'gte']) {
      expectIssue(
        { rules: [condition(operator, ['10'])] },
        `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be a finite number for ${operator} (got "10")`,
        'invalid_values',
      );
    }
  });
  test('semver operators take semantic versions', () => {
    for (const operator of ['semverEq', 'semverLt', 'semverGt']) {
      for (const version of ['1.2-beta', ' 1.2.3', 'latest', '1.2.3.4', '01.2', 'vv1.2.3']) {
        expectIssue(
          { rules: [condition(operator, [version])] },
          `${VALUES}/0`,
          `rules[0].conditions[0].values[0] must be a semantic version like "1.4.0", "v2.0.0-beta.1" or "1.4" for ${operator} (got ${JSON.stringify(version)})`,
          'invalid_values',
        );
      }
      expectIssue(
        { rules: [condition(operator, [1])] },
        `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be a semantic version like "1.4.0", "v2.0.0-beta.1" or "1.4" for ${operator} (got a number)`,
        'invalid_values',
      );
      // Partial versions and either prefix, as flagd and LaunchDarkly read them.
      assert.deepEqual(issuesOf({ rules: [condition(operator, ['1', '1.2', 'v1.2.3', 'V1.0.0', 'V2.0.0-rc.1'])] }), []);
    }
  });
  test('before and after take RFC 3339 timestamps', () => {
    for (const operator of ['before', 'after']) {
      for (const value of ['2026-01-01', '2026-02-30T00:00:00Z']) {
        expectIssue(
          { rules: [condition(operator, [value])] },
          `${VALUES}/0`,
          `rules[0].conditions[0].values[0] must be an RFC 3339 timestamp like "2026-01-31T09:00:00Z" for ${operator} (got ${JSON.stringify(value)})`,
          'invalid_values',
        );
      }
      expectIssue(
        { rules: [condition(operator, [1767225600000])] },
        `${VALUES}/0`,
        `rules[0].conditions[0].values[0] must be an RFC 3339 timestamp like "2026-01-31T09:00:00Z" for ${operator} (got a number)`,
        'invalid_values',
      );
    }
  });
  test('matches takes exactly one valid regular expression of at most 256 characters', () => {
    const exactlyOne =
      'rules[0].conditions[0].values must hold exactly one string, the regular expression, for matches';
    expectIssue({ rules: [condition('matches', [])] }, VALUES, exactlyOne, 'invalid_values');
    expectIssue({ rules: [condition('matches', ['a', 'b'])] }, VALUES, exactlyOne, 'invalid_values');
    expectIssue({ rules: [condition('matches', [1])] }, VALUES, exactlyOne, 'invalid_values');
    assert.deepEqual(issuesOf({ rules: [condition('matches', ['a'.repeat(256)])] }), []);
    expectIssue(
      { rules: [condition('matches', ['a'.repeat(257)])] },
      `${VALUES}/0`,
      'rules[0].conditions[0].values[0] must be a regular expression of at most 256 characters (got 257)',
      'invalid_regex',
    );
    expectIssue(
      { rules: [condition('matches', ['(unclosed'])] },
      `${VALUES}/0`,
      'rules[0].conditions[0].values[0] is not a regular expression in RE2 syntax (the linear-time engine targeting uses): error parsing regexp: missing closing ): `(unclosed`',
      'invalid_regex',
    );
  });
  test('matches refuses what cannot run in linear time, and says why', () => {
    for (const pattern of ['(?=a)b', 'a(?!b)', '(?<=a)b', '(?<!a)b']) {
      expectIssue(
        { rules: [condition('matches', [pattern])] },
        `${VALUES}/0`,
        'rules[0].conditions[0].values[0] uses lookaround ((?=, (?!, (?<= or (?<!), which cannot run in linear time; targeting expressions use RE2 syntax, without lookaround',
        'invalid_regex',
      );
    }
    for (const pattern of ['(a)\\1', '(?<x>a)\\k<x>']) {
      expectIssue(
        { rules: [condition('matches', [pattern])] },
        `${VALUES}/0`,
        'rules[0].conditions[0].values[0] uses a backreference (\\1 or \\k<name>), which cannot run in linear time; targeting expressions use RE2 syntax, without backreferences',
        'invalid_regex',
      );
    }
    // Patterns a backtracking engine runs in exponential time are fine here; JavaScript spellings
    // RE2 lacks are translated; an escaped parenthesis is not lookaround.
    for (const pattern of [
      '(a+)+$',
      '^(\\w+\\s?)*$',
      '\\u0041',
      '\\u{1F600}',
      '\\(?=',
      '[(?=]',
      '(?<name>x)',
      '(?i)beta',
    ]) {
      assert.deepEqual(issuesOf({ rules: [condition('matches', [pattern])] }), [], pattern);
    }
  });
  test('exists and notExists take no values', () => {
    for (const operator of ['exists', 'notExists']) {
      expectIssue(
        { rules: [condition(operator, ['x'])] },
        VALUES,
        `rules[0].conditions[0].values must be empty: ${operator} takes no values`,
        'invalid_values',
      );
    }
  });
});

describe('validateFlagDefinition: rule serve', () => {
  const serve = (value: unknown, extra: Record<string, unknown> = {}) => ({
    rules: [rule({ serve: value })],
    ...extra,
  });
  test('is an object with exactly one of value, variant, rollout', () => {
    expectIssue(serve(undefined), '/rules/0/serve', 'rules[0].serve must be an object (got nothing)', 'required');
    expectIssue(
      serve({}),
      '/rules/0/serve',
      'rules[0].serve must have exactly one of value, variant or rollout (got none)',
      'invalid_serve',
    );
    expectIssue(
      serve({ value: true, variant: 'on' }, { variants: [{ key: 'on', value: true, weight: 100 }] }),
      '/rules/0/serve',
      'rules[0].serve must have exactly one of value, variant or rollout (got value and variant)',
      'invalid_serve',
    );
    expectIssue(
      serve({ value: true, other: 1 }),
      '/rules/0/serve/other',
      'rules[0].serve.other is not a known field (expected one of: value, variant, rollout)',
      'unknown_field',
    );
  });
  test('value has the flag type', () => {
    expectIssue(
      serve({ value: 'yes' }),
      '/rules/0/serve/value',
      'rules[0].serve.value must be a boolean for a flag of type bool (got a string)',
      'type_mismatch',
    );
    assert.deepEqual(
      validateFlagDefinition({ key: 'j', type: 'json', value: 1, rules: [rule({ serve: { value: null } })] }),
      [],
    );
  });
  test('variant names an existing variant', () => {
    expectIssue(
      serve({ variant: 'on' }),
      '/rules/0/serve/variant',
      'rules[0].serve.variant names variant "on" but the flag has no variants',
      'unknown_variant',
    );
    expectIssue(
      serve({ variant: 'off' }, { variants: [{ key: 'on', value: true, weight: 100 }] }),
      '/rules/0/serve/variant',
      'rules[0].serve.variant names variant "off", which is not one of the flag\'s variants (on)',
      'unknown_variant',
    );
    expectIssue(
      serve({ variant: 3 }),
      '/rules/0/serve/variant',
      "rules[0].serve.variant must be the key of one of the flag's variants (got a number)",
      'invalid_type',
    );
  });
  test('rollout has a percentage and a typed value', () => {
    assert.deepEqual(issuesOf(serve({ rollout: { percentage: 10, value: true } })), []);
    expectIssue(
      serve({ rollout: { percentage: 101, value: true } }),
      '/rules/0/serve/rollout/percentage',
      'rules[0].serve.rollout.percentage must be a number between 0 and 100 with at most two decimals (got 101)',
      'out_of_range',
    );
    expectIssue(
      serve({ rollout: { percentage: 10, value: 'x' } }),
      '/rules/0/serve/rollout/value',
      'rules[0].serve.rollout.value must be a boolean for a flag of type bool (got a string)',
      'type_mismatch',
    );
  });
});

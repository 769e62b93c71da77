import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validateFlagDefinition } from './validate.js';
import { base, expectIssue, issuesOf } from '../test/flag-definition-issues.js';

// The definition, its fields, and its type and value; rollout and variants are in
// validate-serving.test.ts, overrides and dependencies in validate-references.test.ts, targeting
// rules in validate-rules.test.ts, parsing in parse-flag-definition.test.ts.

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
        {
          id: 'staff',
          description: 'employees',
          conditions: [{ attribute: 'email', operator: 'endsWith', values: ['@acme.com'] }],
          serve: { variant: 'a' },
        },
        {
          id: 'mobile',
          conditions: [{ attribute: 'app.version', operator: 'semverGt', values: ['v2.0.0'] }],
          serve: { rollout: { percentage: 12.5, value: 'B', salt: 'm' } },
        },
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
});

describe('validateFlagDefinition: the definition itself', () => {
  test('must be an object', () => {
    assert.deepEqual(validateFlagDefinition([]), [
      { path: '', message: 'the flag definition must be an object (got an array)', code: 'invalid_type' },
    ]);
    assert.deepEqual(validateFlagDefinition(null), [
      { path: '', message: 'the flag definition must be an object (got null)', code: 'invalid_type' },
    ]);
  });

  test('unknown fields are rejected', () => {
    expectIssue(
      { active: true },
      '/active',
      'active is not a known field (expected one of: key, type, value, enabled, offValue, clientEnabled, description, rollout, variants, rules, overrides, dependencies, metadata, createdAt, updatedAt)',
      'unknown_field',
    );
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
      expectIssue(
        { key },
        '/key',
        `key must use only letters, digits and . _ - : and start with a letter or digit (got ${JSON.stringify(key)})`,
        'invalid_key',
      );
    }
    assert.deepEqual(issuesOf({ key: '9a.b_c-d:e' }), []);
  });
});

describe('validateFlagDefinition: type and value', () => {
  test('type is one of the four', () => {
    expectIssue(
      { type: 'boolean' },
      '/type',
      'type must be one of: bool, string, number, json (got "boolean")',
      'invalid_type',
    );
    assert.deepEqual(validateFlagDefinition({ key: 'k', value: 1 }), [
      { path: '/type', message: 'type must be one of: bool, string, number, json (got nothing)', code: 'required' },
    ]);
  });
  test('value is required', () => {
    assert.deepEqual(validateFlagDefinition({ key: 'k', type: 'bool' }), [
      { path: '/value', message: 'value is required (a boolean for a flag of type bool)', code: 'required' },
    ]);
  });
  test('bool takes a boolean', () => {
    expectIssue(
      { value: 'false' },
      '/value',
      'value must be a boolean for a flag of type bool (got a string)',
      'type_mismatch',
    );
  });
  test('string takes a string of at most 32 KiB', () => {
    expectIssue(
      { type: 'string', value: 1 },
      '/value',
      'value must be a string for a flag of type string (got a number)',
      'type_mismatch',
    );
    assert.deepEqual(issuesOf({ type: 'string', value: 'x'.repeat(32 * 1024) }), []);
    expectIssue(
      { type: 'string', value: 'x'.repeat(32 * 1024 + 1) },
      '/value',
      'value must be at most 32 KiB (32768 bytes) of UTF-8',
      'too_large',
    );
    // Bytes, not characters: é is two bytes of UTF-8.
    expectIssue(
      { type: 'string', value: 'é'.repeat(16 * 1024 + 1) },
      '/value',
      'value must be at most 32 KiB (32768 bytes) of UTF-8',
      'too_large',
    );
  });
  test('number takes a finite number', () => {
    expectIssue(
      { type: 'number', value: '1' },
      '/value',
      'value must be a finite number for a flag of type number (got a string)',
      'type_mismatch',
    );
    expectIssue(
      { type: 'number', value: Infinity },
      '/value',
      'value must be a finite number for a flag of type number (got Infinity)',
      'type_mismatch',
    );
    expectIssue(
      { type: 'number', value: NaN },
      '/value',
      'value must be a finite number for a flag of type number (got NaN)',
      'type_mismatch',
    );
  });
  test('json takes any JSON value of at most 32 KiB serialised', () => {
    expectIssue(
      { type: 'json', value: { a: NaN } },
      '/value',
      'value must be a JSON value (no NaN, Infinity, undefined or nesting beyond 64 levels)',
      'type_mismatch',
    );
    expectIssue(
      { type: 'json', value: { a: 'x'.repeat(32 * 1024) } },
      '/value',
      'value must be at most 32 KiB (32768 bytes) when serialised as JSON',
      'too_large',
    );
  });
  test('with an invalid type the values are not checked against it', () => {
    assert.deepEqual(
      issuesOf({ type: 'nope', value: 1, rollout: { percentage: 5, value: 'x' } }).map((i) => i.path),
      ['/type'],
    );
  });
});

describe('validateFlagDefinition: simple fields', () => {
  test('clientEnabled is a boolean', () => {
    expectIssue(
      { clientEnabled: 'yes' },
      '/clientEnabled',
      'clientEnabled must be a boolean (got a string)',
      'invalid_type',
    );
  });
  test('enabled is a boolean; offValue is of the flag type', () => {
    expectIssue({ enabled: 'no' }, '/enabled', 'enabled must be a boolean (got a string)', 'invalid_type');
    expectIssue(
      { offValue: 'off' },
      '/offValue',
      'offValue must be a boolean for a flag of type bool (got a string)',
      'type_mismatch',
    );
    assert.deepEqual(issuesOf({ enabled: false, offValue: true }), []);
    assert.deepEqual(validateFlagDefinition({ key: 'j', type: 'json', value: { a: 1 }, offValue: null }), []);
  });
  test('an off value that is the value itself is reported once, at /value', () => {
    assert.deepEqual(
      issuesOf({ value: 'x', offValue: 'x' }).map((i) => i.path),
      ['/value'],
    );
  });
  test('description is a string of at most 1024 characters', () => {
    expectIssue({ description: 5 }, '/description', 'description must be a string (got a number)', 'invalid_type');
    expectIssue(
      { description: 'd'.repeat(1025) },
      '/description',
      'description must be at most 1024 characters (got 1025)',
      'too_long',
    );
  });
  test('metadata is a JSON object of at most 4 KiB', () => {
    expectIssue({ metadata: [] }, '/metadata', 'metadata must be a JSON object (got an array)', 'invalid_type');
    expectIssue(
      { metadata: { a: Infinity } },
      '/metadata',
      'metadata must hold only JSON values (no NaN, Infinity or undefined)',
      'invalid_type',
    );
    assert.deepEqual(issuesOf({ metadata: { a: 'x'.repeat(4096 - 8) } }), []);
    expectIssue(
      { metadata: { a: 'x'.repeat(4096) } },
      '/metadata',
      'metadata must be at most 4 KiB (4096 bytes) when serialised as JSON (got 4104 bytes)',
      'too_large',
    );
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectIssue, issuesOf } from '../test/flag-definition-issues.js';

// What a flag refers to: overrides by targeting key, and the prerequisite flags it depends on.

describe('validateFlagDefinition: overrides', () => {
  test('is an object of targeting key to typed value', () => {
    assert.deepEqual(issuesOf({ overrides: { 'user-1': true, 'a/b~c': false } }), []);
    expectIssue(
      { overrides: [] },
      '/overrides',
      'overrides must be an object from targeting key to value (got an array)',
      'invalid_type',
    );
    expectIssue(
      { overrides: { 'user-1': 'on' } },
      '/overrides/user-1',
      'overrides["user-1"] must be a boolean for a flag of type bool (got a string)',
      'type_mismatch',
    );
  });
  test('pointers escape / and ~ in targeting keys', () => {
    expectIssue(
      { overrides: { 'a/b~c': 1 } },
      '/overrides/a~1b~0c',
      'overrides["a/b~c"] must be a boolean for a flag of type bool (got a number)',
      'type_mismatch',
    );
  });
  test('targeting keys have 1 to 256 characters', () => {
    expectIssue(
      { overrides: { '': true } },
      '/overrides/',
      'overrides[""] has a targeting key of 0 characters; targeting keys have 1 to 256',
      'invalid_key',
    );
  });
});

describe('validateFlagDefinition: dependencies', () => {
  test('is an array of {flag, value}', () => {
    assert.deepEqual(issuesOf({ dependencies: [{ flag: 'other', value: { deep: [1] } }] }), []);
    expectIssue(
      { dependencies: {} },
      '/dependencies',
      'dependencies must be an array of prerequisites (got an object)',
      'invalid_type',
    );
    expectIssue(
      { dependencies: [{ flag: 'other', value: true, not: 1 }] },
      '/dependencies/0/not',
      'dependencies[0].not is not a known field (expected one of: flag, value)',
      'unknown_field',
    );
    expectIssue(
      { dependencies: [{ flag: 'other' }] },
      '/dependencies/0/value',
      'dependencies[0].value is required: the value the prerequisite flag must evaluate to',
      'required',
    );
    expectIssue(
      { dependencies: [{ flag: '', value: true }] },
      '/dependencies/0/flag',
      'dependencies[0].flag must be a non-empty string (got a string)',
      'invalid_key',
    );
  });
  test('cannot name the flag itself', () => {
    expectIssue(
      { dependencies: [{ flag: 'new-checkout', value: true }] },
      '/dependencies/0/flag',
      'dependencies[0].flag names the flag itself; a flag cannot be its own prerequisite',
      'self_dependency',
    );
  });
  test('lists each prerequisite once', () => {
    expectIssue(
      {
        dependencies: [
          { flag: 'a', value: true },
          { flag: 'a', value: false },
        ],
      },
      '/dependencies/1/flag',
      'dependencies[1].flag repeats the prerequisite "a"; list each prerequisite flag once',
      'duplicate',
    );
  });
  test('names a known flag when the known keys are given', () => {
    assert.deepEqual(issuesOf({ dependencies: [{ flag: 'a', value: true }] }, ['a']), []);
    assert.deepEqual(issuesOf({ dependencies: [{ flag: 'b', value: true }] }, ['a', 'new-checkout']), [
      {
        path: '/dependencies/0/flag',
        message: 'dependencies[0].flag names flag "b", which does not exist in this environment',
        code: 'unknown_dependency',
      },
    ]);
  });
});

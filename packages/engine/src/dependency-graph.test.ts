import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_DEPENDENCY_DEPTH, validateDependencyGraph, validateFlagSet } from './dependency-graph.js';
import type { FlagDefinition } from './model.js';
import { withFlagDefaults } from './model.js';

const flagDefinition = (fields: Partial<FlagDefinition> & { key: string }) =>
  withFlagDefaults({ type: 'bool', value: false, ...fields });

const dep = (flag: string, value: unknown = true) => ({ flag, value });

describe('validateDependencyGraph', () => {
  test('an acyclic graph of known flags has no issues', () => {
    const flags = [
      flagDefinition({ key: 'a', dependencies: [dep('b'), dep('c')] }),
      flagDefinition({ key: 'b', dependencies: [dep('c')] }),
      flagDefinition({ key: 'c' }),
    ];
    assert.deepEqual(validateDependencyGraph(flags), []);
  });

  test('reports prerequisites that do not exist', () => {
    assert.deepEqual(validateDependencyGraph([flagDefinition({ key: 'a', dependencies: [dep('ghost')] })]), [
      {
        flagKey: 'a',
        path: '/dependencies/0/flag',
        code: 'unknown_dependency',
        message: 'flag "a": dependencies[0].flag names flag "ghost", which does not exist in this environment',
      },
    ]);
  });

  test('reports a required value the prerequisite can never produce', () => {
    const flags = [flagDefinition({ key: 'a', dependencies: [dep('b', 'on')] }), flagDefinition({ key: 'b' })];
    assert.deepEqual(validateDependencyGraph(flags), [
      {
        flagKey: 'a',
        path: '/dependencies/0/value',
        code: 'dependency_type_mismatch',
        message: 'flag "a": dependencies[0].value can never match, because "b" is a bool flag',
      },
    ]);
  });

  test('reports a two-flag cycle with the cycle in the message', () => {
    const flags = [
      flagDefinition({ key: 'a', dependencies: [dep('b')] }),
      flagDefinition({ key: 'b', dependencies: [dep('a')] }),
    ];
    assert.deepEqual(validateDependencyGraph(flags), [
      {
        flagKey: 'b',
        path: '/dependencies/0/flag',
        code: 'dependency_cycle',
        message: 'flag "b": dependencies[0].flag closes a prerequisite cycle: a → b → a',
      },
    ]);
  });

  test('reports a longer cycle reached from outside it', () => {
    const flags = [
      flagDefinition({ key: 'entry', dependencies: [dep('x')] }),
      flagDefinition({ key: 'x', dependencies: [dep('y')] }),
      flagDefinition({ key: 'y', dependencies: [dep('ok'), dep('z')] }),
      flagDefinition({ key: 'z', dependencies: [dep('x')] }),
      flagDefinition({ key: 'ok' }),
    ];
    const issues = validateDependencyGraph(flags);
    assert.equal(issues.length, 1);
    assert.equal(issues[0].message, 'flag "z": dependencies[0].flag closes a prerequisite cycle: x → y → z → x');
  });

  test('reports a self-loop', () => {
    const issues = validateDependencyGraph([flagDefinition({ key: 'a', dependencies: [dep('a')] })]);
    assert.deepEqual(
      issues.map((i) => i.message),
      ['flag "a": dependencies[0].flag closes a prerequisite cycle: a → a'],
    );
  });

  test('reports chains deeper than the limit', () => {
    const chain = (length: number) =>
      Array.from({ length }, (_, i) =>
        flagDefinition({ key: `f${i}`, dependencies: i + 1 < length ? [dep(`f${i + 1}`, false)] : [] }),
      );
    assert.deepEqual(validateDependencyGraph(chain(MAX_DEPENDENCY_DEPTH + 1)), []);
    assert.deepEqual(validateDependencyGraph(chain(MAX_DEPENDENCY_DEPTH + 2)), [
      {
        flagKey: 'f0',
        path: '/dependencies',
        code: 'dependency_depth',
        message: `flag "f0": prerequisite chains may be at most ${MAX_DEPENDENCY_DEPTH} flags deep (this one is ${MAX_DEPENDENCY_DEPTH + 1})`,
      },
    ]);
  });

  test('a long chain does not overflow the stack', () => {
    const flags = Array.from({ length: 50_000 }, (_, i) =>
      flagDefinition({ key: `f${i}`, dependencies: [dep(`f${(i + 1) % 50_000}`, false)] }),
    );
    const issues = validateDependencyGraph(flags);
    assert.equal(issues.length, 1);
    assert.equal(issues[0].code, 'dependency_cycle');
  });
});

describe('validateFlagSet', () => {
  test('prefixes per-flag issues with the flag key', () => {
    const issues = validateFlagSet([flagDefinition({ key: 'a', value: 'no' })]);
    assert.deepEqual(issues, [
      {
        flagKey: 'a',
        path: '/value',
        code: 'type_mismatch',
        message: 'flag "a": value must be a boolean for a flag of type bool (got a string)',
      },
    ]);
  });

  test('reports duplicate keys', () => {
    const issues = validateFlagSet([flagDefinition({ key: 'a' }), flagDefinition({ key: 'a' })]);
    assert.deepEqual(issues, [
      { flagKey: 'a', path: '/key', code: 'duplicate', message: 'flag "a": key appears more than once in the set' },
    ]);
  });

  test('reports unknown prerequisites and cycles', () => {
    assert.equal(
      validateFlagSet([flagDefinition({ key: 'a', dependencies: [dep('b')] })])[0].code,
      'unknown_dependency',
    );
    const cyclic = [
      flagDefinition({ key: 'a', dependencies: [dep('b')] }),
      flagDefinition({ key: 'b', dependencies: [dep('a')] }),
    ];
    assert.equal(validateFlagSet(cyclic)[0].code, 'dependency_cycle');
  });

  test('names a flag without a usable key by its position', () => {
    assert.equal(
      validateFlagSet([{ type: 'bool', value: true }])[0].message,
      'flag "#0": key must be a non-empty string (got nothing)',
    );
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
// The main entry installs re2js for `matches` conditions (without it they do not validate).
import './index.js';
import type { Operator } from './model.js';
import { OPERATORS } from './model.js';
import { compileCondition, compileOperator, isOperator, OPERATOR_VALUE_KINDS } from './operators.js';

interface Case {
  values: unknown[];
  holds: unknown[];
  fails: unknown[];
  /** Attributes of the wrong type: the condition is false, also for negated operators. */
  mismatches: unknown[];
}

const ABSENT = [undefined, null];
const NON_STRINGS = [...ABSENT, 42, true, { a: 'b' }];

const cases: Record<Operator, Case> = {
  in: {
    values: ['pro', 'team', 3, true],
    holds: ['pro', 'team', 3, true],
    fails: ['free', 'PRO', 4, false],
    mismatches: [...ABSENT, ['pro'], { plan: 'pro' }],
  },
  notIn: {
    values: ['pro', 'team'],
    holds: ['free', 'PRO', 7, false],
    fails: ['pro', 'team'],
    mismatches: [...ABSENT, ['free'], {}],
  },
  eq: { values: ['pro'], holds: ['pro'], fails: ['pro ', 'Pro'], mismatches: [...ABSENT, ['pro'], {}] },
  neq: { values: ['pro'], holds: ['free', 1, false], fails: ['pro'], mismatches: [...ABSENT, ['free'], {}] },
  contains: {
    values: ['@example.com', 'beta'],
    holds: ['ann@example.com', 'beta-tester', ['alpha', 'beta'], ['beta']],
    fails: ['ann@example.org', ['alpha'], ['ann@example.com'], [], ''],
    mismatches: [...ABSENT, 42, true, { beta: true }],
  },
  notContains: {
    values: ['@example.com'],
    holds: ['ann@example.org', ['x@example.org'], []],
    fails: ['ann@example.com', ['@example.com']],
    mismatches: [...ABSENT, 42, true, { a: 1 }],
  },
  startsWith: {
    values: ['org_', 'team_'],
    holds: ['org_1', 'team_x'],
    fails: ['user_1', 'ORG_1', ''],
    mismatches: [...NON_STRINGS, ['org_1']],
  },
  endsWith: {
    values: ['.fr', '.de'],
    holds: ['shop.fr', 'x.de'],
    fails: ['shop.com', 'fr'],
    mismatches: [...NON_STRINGS, ['a.fr']],
  },
  matches: {
    values: ['^user-[0-9]+$'],
    holds: ['user-1', 'user-42'],
    fails: ['user-', 'xuser-1', 'USER-1'],
    mismatches: [...NON_STRINGS, 12, ['user-1']],
  },
  lt: { values: [10], holds: [9, -1, 9.99], fails: [10, 11], mismatches: [...ABSENT, '5', true, [5]] },
  lte: { values: [10], holds: [10, 9], fails: [10.01, 11], mismatches: [...ABSENT, '5', [5]] },
  gt: { values: [10], holds: [11, 10.5], fails: [10, 9], mismatches: [...ABSENT, '50', false, [50]] },
  gte: { values: [10], holds: [10, 11], fails: [9.99], mismatches: [...ABSENT, '50', [50]] },
  semverEq: {
    values: ['1.4.0', '2.0.0-beta.1'],
    holds: ['1.4.0', 'v1.4.0', 'V1.4.0', '1.4', 'v1.4', '1.4.0+build.7', '2.0.0-beta.1', 1.4],
    fails: ['1.4.1', '1', 1, '2.0.0', '2.0.0-beta.2', 1.41],
    mismatches: [
      ...ABSENT,
      ' 1.4.0',
      '=1.4.0',
      'vv1.4.0',
      '1.4.0.0',
      '01.4.0',
      '1.4-beta',
      'latest',
      -1,
      -1.4,
      1e21,
      Infinity,
      ['1.4.0'],
    ],
  },
  semverLt: {
    values: ['2.0.0'],
    holds: ['1.9.9', '2.0.0-rc.1', 'v1.0.0', '1.9', '1', 1, 1.9, 0.5],
    fails: ['2.0.0', '2', 2, '2.0.1', '10.0.0', 2.0, 2.5],
    mismatches: [...ABSENT, 'one', '1.9.x', -0.5],
  },
  semverGt: {
    values: ['2'],
    holds: ['2.0.1', '10.0.0', '2.1.0-alpha', '3', 3, 3.5, 2.1],
    fails: ['2.0.0', '1.99.99', '2.0.0-rc.1', 1.99],
    mismatches: [...ABSENT, '3.', NaN, -Infinity],
  },
  before: {
    values: ['2026-06-01T00:00:00Z'],
    holds: [
      '2026-05-31T23:59:59.999Z',
      '2026-06-01T01:59:00+02:00',
      Date.UTC(2026, 0, 1),
      new Date(Date.UTC(2020, 0, 1)),
    ],
    fails: ['2026-06-01T00:00:00Z', '2026-06-01T00:00:00.001Z', Date.UTC(2027, 0, 1)],
    mismatches: [...ABSENT, '2026-01-01', 'yesterday', true, NaN, Infinity, -Infinity, ['2020-01-01T00:00:00Z']],
  },
  after: {
    values: ['2026-06-01T00:00:00Z'],
    holds: ['2026-06-01T00:00:00.001Z', '2026-05-31T20:00:01-04:00', Date.UTC(2027, 0, 1)],
    fails: ['2026-06-01T00:00:00Z', '2020-01-01T00:00:00Z', 0],
    mismatches: [...ABSENT, '2027-01-01', Infinity, {}],
  },
  exists: { values: [], holds: ['', 0, false, [], {}, 'x'], fails: [undefined, null], mismatches: [] },
  notExists: { values: [], holds: [undefined, null], fails: ['', 0, false, [], {}], mismatches: [] },
};

describe('operators', () => {
  test('the test table covers every operator', () => {
    assert.deepEqual(Object.keys(cases).sort(), [...OPERATORS].sort());
    assert.deepEqual(Object.keys(OPERATOR_VALUE_KINDS).sort(), [...OPERATORS].sort());
  });

  for (const operator of OPERATORS) {
    const { values, holds, fails, mismatches } = cases[operator];
    describe(operator, () => {
      const predicate = compileOperator(operator, values);
      test('holds', () => {
        for (const attribute of holds)
          assert.equal(predicate(attribute), true, `${operator} ${JSON.stringify(values)} on ${String(attribute)}`);
      });
      test('does not hold', () => {
        for (const attribute of fails)
          assert.equal(predicate(attribute), false, `${operator} ${JSON.stringify(values)} on ${String(attribute)}`);
      });
      test('type mismatches are false and never throw', () => {
        for (const attribute of mismatches)
          assert.equal(predicate(attribute), false, `${operator} on ${String(attribute)}`);
      });
    });
  }

  test("a context number is read as JavaScript writes it, as OpenFeature's sem_ver does: 1.2 is 1.2.0, 1.10 is 1.1.0", () => {
    assert.equal(compileOperator('semverEq', ['1.2.0'])(1.2), true);
    assert.equal(compileOperator('semverEq', ['1.1.0'])(1.1), true, '1.10 is the number 1.1');
    assert.equal(compileOperator('semverGt', ['1.9.0'])(1.1), false);
    assert.equal(compileOperator('semverEq', ['0.0.0'])(-0), true);
    assert.equal(compileOperator('semverGt', ['1.0.0'])(1.2345), true, '1.2345 is 1.2345.0');
    // Read the same way whether parsed once or from the cache.
    for (let i = 0; i < 3; i++) assert.equal(compileOperator('semverLt', ['1.3'])(1.2), true);
  });

  test('several values: positive operators match any, negated ones none', () => {
    assert.equal(compileOperator('eq', ['a', 'b'])('b'), true);
    assert.equal(compileOperator('neq', ['a', 'b'])('b'), false);
    assert.equal(compileOperator('neq', ['a', 'b'])('c'), true);
    assert.equal(compileOperator('lt', [5, 10])(7), true);
    assert.equal(compileOperator('gt', [5, 10])(7), true);
    assert.equal(compileOperator('gt', [5, 10])(5), false);
    assert.equal(compileOperator('semverLt', ['1.0.0', '2.0.0'])('1.5.0'), true);
    assert.equal(compileOperator('semverGt', ['1.0.0', '2.0.0'])('1.5.0'), true);
    assert.equal(compileOperator('semverGt', ['1.0.0', '2.0.0'])('0.5.0'), false);
    assert.equal(
      compileOperator('before', ['2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'])('2026-06-01T00:00:00Z'),
      true,
    );
    assert.equal(
      compileOperator('after', ['2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'])('2026-06-01T00:00:00Z'),
      true,
    );
    assert.equal(compileOperator('notContains', ['a', 'b'])('xbx'), false);
    assert.equal(compileOperator('startsWith', ['a', 'b'])('bee'), true);
  });

  test('membership is strict about types', () => {
    assert.equal(compileOperator('in', ['1', 'true'])(1), false);
    assert.equal(compileOperator('in', ['1', 'true'])(true), false);
    assert.equal(compileOperator('in', [1])('1'), false);
    assert.equal(compileOperator('eq', [0])(-0), true);
    assert.equal(compileOperator('contains', ['1'])([1]), false);
  });

  test('a regex is compiled once and has no state between calls', () => {
    const predicate = compileOperator('matches', ['a']);
    for (let i = 0; i < 5; i++) assert.equal(predicate('banana'), true);
  });

  test('matches runs in linear time: a pattern that makes backtracking engines exponential', () => {
    // A backtracking engine (JavaScript's RegExp) doubles its work with each extra "a" here: at
    // 40 characters it ran for minutes. RE2 answers 10,000 at once.
    const predicate = compileOperator('matches', ['(a+)+$']);
    const started = performance.now();
    assert.equal(predicate('a'.repeat(10_000) + '!'), false);
    assert.equal(predicate('a'.repeat(10_000)), true);
    assert.equal(compileOperator('matches', ['^(\\w+\\s?)*$'])('word '.repeat(2_000) + '!'), false);
    assert.ok(performance.now() - started < 2_000, 'well under a second on any machine');
  });

  test('matches reads JavaScript spellings RE2 lacks', () => {
    assert.equal(compileOperator('matches', ['^\\u0041$'])('A'), true);
    assert.equal(compileOperator('matches', ['^\\d{3}$'])('123'), true);
    assert.equal(compileOperator('matches', ['^\\d{3}$'])('1234'), false);
    assert.equal(compileOperator('matches', ['^a.b$'])('a\nb'), false);
  });

  test('isOperator', () => {
    assert.equal(isOperator('semverEq'), true);
    assert.equal(isOperator('toString'), false);
    assert.equal(isOperator('EQ'), false);
    assert.equal(isOperator(1), false);
  });
});

describe('compileCondition', () => {
  test('reads the attribute path and applies the operator', () => {
    const condition = compileCondition({ attribute: 'user.country', operator: 'in', values: ['FR', 'DE'] });
    assert.equal(condition({ user: { country: 'FR' } }), true);
    assert.equal(condition({ user: { country: 'US' } }), false);
    assert.equal(condition({}), false);
    assert.equal(condition({ user: 'FR' }), false);
  });

  test('targetingKey is an attribute like any other', () => {
    const condition = compileCondition({ attribute: 'targetingKey', operator: 'startsWith', values: ['internal-'] });
    assert.equal(condition({ targetingKey: 'internal-7' }), true);
    assert.equal(condition({ targetingKey: 'user-7' }), false);
  });

  test('a negated operator on a missing attribute is false (use notExists for absence)', () => {
    assert.equal(compileCondition({ attribute: 'plan', operator: 'neq', values: ['pro'] })({}), false);
    assert.equal(compileCondition({ attribute: 'plan', operator: 'notIn', values: ['pro'] })({}), false);
    assert.equal(compileCondition({ attribute: 'plan', operator: 'notExists', values: [] })({}), true);
  });
});

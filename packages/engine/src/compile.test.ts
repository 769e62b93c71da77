import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvaluationResult, FlagDefinition } from './model.js';
import { withFlagDefaults } from './model.js';
import { compileFlagSet } from './compile.js';
import { ConfigInvalidError } from './config-invalid-error.js';
import { configInvalidResult } from './results.js';

const flag = (fields: Partial<FlagDefinition> & { key: string }) =>
  withFlagDefaults({ type: 'bool', value: false, ...fields });

/** The fields that matter, without the undefined ones every result carries. */
function summary(result: EvaluationResult): Record<string, unknown> {
  return Object.fromEntries(Object.entries(result).filter(([, value]) => value !== undefined));
}

describe('evaluate: plain flags and errors', () => {
  const set = compileFlagSet([
    flag({ key: 'plain', value: true }),
    flag({ key: 'label', type: 'string', value: 'hi', metadata: { owner: 'x' } }),
  ]);

  test('a flag without targeting is STATIC', () => {
    assert.deepEqual(summary(set.evaluate('plain', { targetingKey: 'u' })), {
      key: 'plain',
      value: true,
      reason: 'STATIC',
      fallbackClass: 'none',
    });
    assert.deepEqual(summary(set.evaluate('label')), {
      key: 'label',
      value: 'hi',
      reason: 'STATIC',
      fallbackClass: 'none',
    });
  });

  test('every result carries all nine fields, in one order', () => {
    assert.deepEqual(Object.keys(set.evaluate('plain')), [
      'key',
      'value',
      'variant',
      'reason',
      'ruleId',
      'errorCode',
      'errorMessage',
      'fallbackClass',
      'experiment',
    ]);
    assert.deepEqual(Object.keys(set.evaluate('missing')), Object.keys(set.evaluate('plain')));
  });

  test('an unknown key is FLAG_NOT_FOUND', () => {
    assert.deepEqual(summary(set.evaluate('missing', {})), {
      key: 'missing',
      reason: 'ERROR',
      errorCode: 'FLAG_NOT_FOUND',
      fallbackClass: 'flag_not_found',
      errorMessage: 'flag "missing" does not exist in this environment',
    });
  });

  test('an expected type other than the flag type is TYPE_MISMATCH', () => {
    assert.equal(set.evaluate('plain', {}, 'bool').value, true);
    assert.deepEqual(summary(set.evaluate('plain', {}, 'string')), {
      key: 'plain',
      reason: 'ERROR',
      errorCode: 'TYPE_MISMATCH',
      fallbackClass: 'type_mismatch',
      errorMessage: 'flag "plain" is of type bool, not string',
    });
  });

  test('a context that is not an object, or a non-string targetingKey, is INVALID_CONTEXT', () => {
    for (const context of [
      null,
      [],
      'u1',
      7,
      { targetingKey: 42 },
      { targetingKey: { id: 1 } },
      { targetingKey: true },
    ]) {
      assert.deepEqual(
        summary(set.evaluate('plain', context as never)),
        {
          key: 'plain',
          reason: 'ERROR',
          errorCode: 'INVALID_CONTEXT',
          fallbackClass: 'invalid_context',
          errorMessage: 'the evaluation context must be an object whose targetingKey, when present, is a string',
        },
        JSON.stringify(context),
      );
    }
  });

  test('a context whose attributes throw on read is an error result, not an exception', () => {
    const rules = compileFlagSet([
      flag({
        key: 'r',
        rules: [
          { id: 'x', conditions: [{ attribute: 'plan', operator: 'exists', values: [] }], serve: { value: true } },
        ],
      }),
    ]);
    const hostile = {
      get plan(): never {
        throw new Error('boom');
      },
    };
    assert.deepEqual(summary(rules.evaluate('r', hostile)), {
      key: 'r',
      reason: 'ERROR',
      errorCode: 'GENERAL',
      fallbackClass: 'invalid_context',
      errorMessage: 'reading the evaluation context failed: boom',
    });
  });

  test('has, keys and evaluateAll', () => {
    assert.equal(set.has('plain'), true);
    assert.equal(set.has('missing'), false);
    assert.deepEqual(set.keys(), ['plain', 'label']);
    assert.deepEqual(
      set.evaluateAll({}).map((r) => [r.key, r.value]),
      [
        ['plain', true],
        ['label', 'hi'],
      ],
    );
  });

  test('configInvalidResult is an error result for callers whose set did not compile', () => {
    assert.deepEqual(summary(configInvalidResult('x')), {
      key: 'x',
      reason: 'ERROR',
      errorCode: 'PARSE_ERROR',
      fallbackClass: 'config_invalid',
      errorMessage: 'the flag configuration of this environment is invalid',
    });
  });
});

describe('compileFlagSet: invalid configuration', () => {
  test('throws ConfigInvalidError with every issue', () => {
    assert.throws(
      () =>
        compileFlagSet([flag({ key: 'a', value: 'x' }), flag({ key: 'b', rollout: { percentage: 200, value: true } })]),
      (error: unknown) => {
        assert.ok(error instanceof ConfigInvalidError);
        assert.equal(error.code, 'CONFIG_INVALID');
        assert.deepEqual(
          error.issues.map((i) => [i.flagKey, i.path]),
          [
            ['a', '/value'],
            ['b', '/rollout/percentage'],
          ],
        );
        assert.match(error.message, /^flag configuration cannot be compiled: flag "a": value must be a boolean/);
        return true;
      },
    );
  });

  test('throws on unknown prerequisites and cycles', () => {
    assert.throws(
      () => compileFlagSet([flag({ key: 'a', dependencies: [{ flag: 'ghost', value: true }] })]),
      ConfigInvalidError,
    );
    assert.throws(
      () =>
        compileFlagSet([
          flag({ key: 'a', dependencies: [{ flag: 'b', value: true }] }),
          flag({ key: 'b', dependencies: [{ flag: 'a', value: true }] }),
        ]),
      /closes a prerequisite cycle: a → b → a/,
    );
  });

  test('throws on duplicate keys', () => {
    assert.throws(() => compileFlagSet([flag({ key: 'a' }), flag({ key: 'a' })]), /key appears more than once/);
  });
});

describe('compiled sets are immutable', () => {
  test('results are frozen, down to their values', () => {
    const set = compileFlagSet([flag({ key: 'cfg', type: 'json', value: { list: [1] } })]);
    const result = set.evaluate('cfg');
    assert.ok(Object.isFrozen(result));
    assert.throws(() => {
      (result.value as { list: number[] }).list.push(2);
    }, TypeError);
    assert.deepEqual(set.evaluate('cfg').value, { list: [1] });
  });

  test('changing the definitions after compiling changes nothing', () => {
    const definition = flag({ key: 'cfg', type: 'json', value: { on: true }, overrides: { u: { on: false } } });
    const set = compileFlagSet([definition]);
    (definition.value as { on: boolean }).on = false;
    definition.overrides.v = { on: false };
    assert.deepEqual(set.evaluate('cfg', { targetingKey: 'v' }).value, { on: true });
    assert.equal(Object.isFrozen(definition), false);
  });
});

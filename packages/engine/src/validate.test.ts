import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlagDefinition, validateFlagDefinition } from './validate.js';
import type { ValidationIssue } from './validation-issue.js';

// The definition, its fields, rollout, variants, overrides and dependencies; targeting rules are in
// validate-rules.test.ts.

const base = { key: 'new-checkout', type: 'bool', value: false };

function issuesOf(patch: Record<string, unknown>, knownFlagKeys?: string[]): ValidationIssue[] {
  return validateFlagDefinition({ ...base, ...patch }, knownFlagKeys);
}

/** Asserts the definition has exactly this one issue. */
function expectIssue(patch: Record<string, unknown>, path: string, message: string, code: string): void {
  assert.deepEqual(issuesOf(patch), [{ path, message, code }]);
}

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

describe('parseFlagDefinition', () => {
  test('fills in the defaults of optional fields', () => {
    assert.deepEqual(parseFlagDefinition(base), {
      ok: true,
      flag: {
        key: 'new-checkout',
        type: 'bool',
        value: false,
        enabled: true,
        offValue: false,
        clientEnabled: false,
        description: '',
        rollout: null,
        variants: null,
        rules: [],
        overrides: {},
        dependencies: [],
        metadata: {},
      },
    });
  });
  test('the off value defaults to the value; a given one stays', () => {
    const defaulted = parseFlagDefinition({ key: 'f', type: 'string', value: 'on', enabled: false });
    assert.ok(defaulted.ok);
    assert.equal(defaulted.flag.enabled, false);
    assert.equal(defaulted.flag.offValue, 'on');
    const given = parseFlagDefinition({ key: 'f', type: 'string', value: 'on', offValue: 'off' });
    assert.ok(given.ok);
    assert.equal(given.flag.offValue, 'off');
    assert.equal(given.flag.enabled, true);
  });
  test('treats fields set to undefined as absent and drops the record timestamps', () => {
    const result = parseFlagDefinition({
      ...base,
      rollout: undefined,
      rules: undefined,
      createdAt: '2026-11-22T10:00:00.000Z',
    });
    assert.ok(result.ok);
    assert.equal(result.flag.rollout, null);
    assert.deepEqual(result.flag.rules, []);
    assert.equal('createdAt' in result.flag, false);
  });
  test('returns the issues of an invalid definition', () => {
    const result = parseFlagDefinition({ ...base, value: 1 });
    assert.equal(result.ok, false);
    assert.deepEqual(!result.ok && result.issues.map((i) => i.path), ['/value']);
  });
});

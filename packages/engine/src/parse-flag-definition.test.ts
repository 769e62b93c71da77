import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlagDefinition } from './validate.js';
import { base } from '../test/flag-definition-issues.js';

// parseFlagDefinition: a valid definition with its defaults filled in, or the issues.

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

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dependencyChanges, diffStates, redactSubjects, visibilityChanges } from './config-diff.js';
import { emptyState, type ConfigState, type FlagRecord } from './versions.model.js';

const flag = (key: string, fields: Partial<FlagRecord> = {}): FlagRecord => ({
  key,
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
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});
const state = (...flags: FlagRecord[]): ConfigState => ({
  ...emptyState(),
  flags: Object.fromEntries(flags.map((f) => [f.key, f])),
});

describe('config diff', () => {
  test('equal states, or states differing only in timestamps, have no changes', () => {
    assert.deepEqual(diffStates(state(flag('a')), state(flag('a'))), []);
    assert.deepEqual(diffStates(state(flag('a')), state(flag('a', { updatedAt: '2027-01-01T00:00:00.000Z' }))), []);
  });

  test('adds and removes carry the definition without timestamps; changes are per field and per override subject', () => {
    const before = state(flag('gone'), flag('kept', { overrides: { 'a/b': true, x: false } }));
    const after = state(flag('kept', { value: true, overrides: { x: true } }), flag('new'));
    const changes = diffStates(before, after);
    assert.deepEqual(
      changes.map((c) => [c.op, c.key, c.path]),
      [
        ['remove', 'gone', ''],
        ['remove', 'kept', '/overrides/a~1b'],
        ['change', 'kept', '/overrides/x'],
        ['change', 'kept', '/value'],
        ['add', 'new', ''],
      ],
    );
    assert.equal('createdAt' in (changes[0]!.before as object), false);
    assert.equal('after' in changes[0]!, false);
    assert.equal('before' in changes[4]!, false);
  });

  test('sections other than flags are diffed field by field, and the order never depends on insertion order', () => {
    const a: ConfigState = { ...emptyState(), settings: { ttlSeconds: 60 } };
    const b = {
      ...emptyState(),
      privacy: { clientMetadataKeys: ['o'], privateAttributes: [] },
      settings: { ttlSeconds: 5 },
      extra: { on: true },
    } as ConfigState;
    assert.deepEqual(
      diffStates(a, b).map((c) => `${c.op} ${c.resourceType}:${c.key}`),
      ['change privacy:clientMetadataKeys', 'change settings:ttlSeconds', 'add state:extra'],
    );
    const reordered = {
      extra: { on: true },
      settings: { ttlSeconds: 5 },
      privacy: { privateAttributes: [], clientMetadataKeys: ['o'] },
      flags: {},
    } as ConfigState;
    assert.equal(JSON.stringify(diffStates(a, reordered)), JSON.stringify(diffStates(a, b)));
  });

  test('dependency and visibility changes, absent flags counting as none and hidden', () => {
    const before = state(flag('a', { clientEnabled: true }), flag('b'));
    const after = state(flag('b', { dependencies: [{ flag: 'c', value: true }], clientEnabled: true }), flag('c'));
    assert.deepEqual(dependencyChanges(before, after), [{ key: 'b', before: [], after: [{ flag: 'c', value: true }] }]);
    assert.deepEqual(visibilityChanges(before, after), [
      { key: 'a', before: true, after: false },
      { key: 'b', before: false, after: true },
    ]);
  });

  test('redaction replaces override subjects in paths and in whole-flag values, and nothing else', () => {
    const hash = (s: string) => `h(${s})`;
    const changes = diffStates(
      state(flag('old', { overrides: { 'user-1': true } }), flag('k', { overrides: { 'a/b': true } })),
      state(flag('k', { overrides: { 'a/b': false } })),
    );
    assert.deepEqual(redactSubjects(changes, hash), [
      { op: 'change', resourceType: 'flag', key: 'k', path: '/overrides/h(a/b)', before: true, after: false },
      {
        op: 'remove',
        resourceType: 'flag',
        key: 'old',
        path: '',
        before: { ...(changes[1]!.before as object), overrides: { 'h(user-1)': true } },
      },
    ]);
    const settings = diffStates(emptyState(), { ...emptyState(), settings: { ttlSeconds: 1 } });
    assert.deepEqual(redactSubjects(settings, hash), settings);
  });
});

// `@ensign/engine/core` ships no regex engine: `matches` must be refused clearly until one is
// installed, and work once it is. This file imports the core entry only (never the main entry,
// which would install re2js for the whole process).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileDocument,
  compileFlagSet,
  ConfigInvalidError,
  installedRegexEngine,
  installRegexEngine,
  needsRegexEngine,
  validateExperimentFields,
  validateFlagDefinition,
  withFlagDefaults,
  type FlagDefinition,
  type RegexEngine,
  type ServedExperiment,
} from '../src/core.js';
import { re2RegexEngine } from '../src/re2.js';

const withMatches: FlagDefinition = withFlagDefaults({
  key: 'staff',
  type: 'bool',
  value: false,
  rules: [
    {
      id: 'staff',
      conditions: [{ attribute: 'email', operator: 'matches', values: ['@example\\.com$'] }],
      serve: { value: true },
    },
  ],
});
const plain: FlagDefinition = withFlagDefaults({
  key: 'plain',
  type: 'string',
  value: 'x',
  rules: [{ id: 'r', conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], serve: { value: 'y' } }],
});
const experiment: ServedExperiment = {
  id: 'exp_1',
  key: 'e',
  flagKey: 'plain',
  state: 'running',
  iterationId: 'it_1',
  iterationNumber: 1,
  iterationRevision: 1,
  salt: 's',
  allocation: 100,
  variants: [
    { key: 'a', value: 'a', weight: 50 },
    { key: 'b', value: 'b', weight: 50 },
  ],
  targeting: [{ attribute: 'email', operator: 'matches', values: ['x'] }],
  layer: null,
  holdout: null,
};

describe('the regex engine is installed, not bundled', () => {
  // The engine is the process's: whatever another test file in this process installed is put back.
  let installedBefore: RegexEngine | null = null;
  before(() => (installedBefore = installedRegexEngine()));
  after(() => installRegexEngine(installedBefore));

  test('needsRegexEngine finds matches in rules and in experiment targeting, and tolerates malformed input', () => {
    assert.equal(needsRegexEngine([plain]), false);
    assert.equal(needsRegexEngine([plain, withMatches]), true);
    assert.equal(needsRegexEngine([plain], [experiment]), true);
    assert.equal(needsRegexEngine([plain], [{ ...experiment, targeting: [] }]), false);
    assert.equal(
      needsRegexEngine([{ rules: null }, { rules: [{ conditions: null }] }, {} as never], [{ targeting: null }]),
      false,
    );
  });

  test('without an engine: validation reports regex_engine_missing and compiling refuses the set', () => {
    installRegexEngine(null);
    assert.equal(installedRegexEngine(), null);
    const issues = validateFlagDefinition(withMatches);
    assert.deepEqual(
      issues.map((i) => [i.path, i.code]),
      [['/rules/0/conditions/0/values', 'regex_engine_missing']],
    );
    assert.match(issues[0]!.message, /import @ensign\/engine .*installRegexEngine/);
    assert.deepEqual(
      validateExperimentFields({ type: 'string', targeting: experiment.targeting }).map((i) => i.code),
      ['regex_engine_missing'],
    );
    assert.throws(
      () => compileFlagSet([withMatches]),
      (error: unknown) => error instanceof ConfigInvalidError && error.issues[0]!.code === 'regex_engine_missing',
    );
    // A served experiment is not validated again by compileFlagSet, but its regex still needs an engine.
    assert.throws(
      () => compileFlagSet([plain], [experiment]),
      (error: unknown) =>
        error instanceof ConfigInvalidError &&
        error.issues[0]!.code === 'regex_engine_missing' &&
        error.issues[0]!.flagKey === 'plain',
    );
    // Flags without matches need nothing.
    assert.equal(compileFlagSet([plain]).evaluate('plain', { plan: 'pro' }).value, 'y');
  });

  test('with re2js installed: matches validates and evaluates; sets compiled before keep their regexes', () => {
    installRegexEngine(re2RegexEngine);
    const set = compileFlagSet([withMatches]);
    assert.equal(set.evaluate('staff', { email: 'ann@example.com' }).value, true);
    assert.equal(set.evaluate('staff', { email: 'ann@example.org' }).value, false);
    installRegexEngine(null);
    assert.equal(set.evaluate('staff', { email: 'ann@example.com' }).value, true);
  });

  test('any engine can be installed: it compiles what validation accepted', () => {
    const patterns: string[] = [];
    const prefixEngine: RegexEngine = {
      name: 'prefix',
      compile(pattern) {
        patterns.push(pattern);
        if (pattern === '(') throw new Error('unbalanced');
        return { test: (input) => input.startsWith(pattern) };
      },
    };
    installRegexEngine(prefixEngine);
    try {
      const flag = withFlagDefaults({
        ...withMatches,
        rules: [
          { id: 'r', conditions: [{ attribute: 'a', operator: 'matches', values: ['ab'] }], serve: { value: true } },
        ],
      });
      assert.equal(compileFlagSet([flag]).evaluate('staff', { a: 'abc' }).value, true);
      assert.ok(patterns.includes('ab'));
      const broken = withFlagDefaults({
        ...withMatches,
        rules: [
          { id: 'r', conditions: [{ attribute: 'a', operator: 'matches', values: ['('] }], serve: { value: true } },
        ],
      });
      const issues = validateFlagDefinition(broken);
      assert.equal(issues[0]!.code, 'invalid_regex');
      assert.match(issues[0]!.message, /unbalanced/);
      // Lookaround is refused before any engine sees the pattern.
      const lookaround = withFlagDefaults({
        ...withMatches,
        rules: [
          { id: 'r', conditions: [{ attribute: 'a', operator: 'matches', values: ['(?=a)'] }], serve: { value: true } },
        ],
      });
      const count = patterns.length;
      assert.match(validateFlagDefinition(lookaround)[0]!.message, /lookaround/);
      assert.equal(patterns.length, count);
    } finally {
      installRegexEngine(null);
    }
  });

  test('compileDocument refuses a document whose flags use matches without an engine, with the same issue', () => {
    installRegexEngine(null);
    const { key: _k, description: _d, clientEnabled: _c, ...fields } = withMatches;
    const document = {
      schemaVersion: 'core/v1',
      appId: 'a',
      env: 'prod',
      version: 1,
      audience: 'client',
      delivery: { ttlSeconds: 30, etag: '"x"', generatedAt: '2026-01-01T00:00:00Z', pollIntervalSeconds: 30 },
      privacy: { privateAttributes: [], clientMetadataKeys: [] },
      flags: { staff: { ...fields, clientVisible: true } },
    };
    assert.throws(
      () => compileDocument(document),
      (error: unknown) => error instanceof ConfigInvalidError && error.issues[0]!.code === 'regex_engine_missing',
    );
    installRegexEngine(re2RegexEngine);
    assert.equal(compileDocument(document).evaluate('staff', { email: 'b@example.com' }).value, true);
    installRegexEngine(null);
  });
});

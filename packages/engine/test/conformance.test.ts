// The shared conformance vectors (conformance/vectors.json) through the engine itself: compiled as
// flag sets and as core/v1 documents, every case must answer exactly what the vectors say, and every
// invalid configuration must be refused with the issues they list.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  compileDocument,
  compileFlagSet,
  compileServedDocument,
  ConfigInvalidError,
  CORE_SCHEMA_VERSION,
  OPERATORS,
  REASONS,
  withFlagDefaults,
  type CompiledFlagSet,
  type CoreDocument,
  type CoreFlag,
} from '../src/index.js';
import { conformanceMismatches, type ConformanceSuite, type ConformanceVectors } from '../src/conformance.js';

const vectors: ConformanceVectors = JSON.parse(
  readFileSync(new URL('../conformance/vectors.json', import.meta.url), 'utf8'),
);

function documentOf(suite: ConformanceSuite): CoreDocument {
  const flags: Record<string, CoreFlag> = {};
  for (const flag of suite.flags) {
    const { key: _key, description: _description, clientEnabled, ...fields } = withFlagDefaults(flag);
    flags[flag.key] = { ...fields, clientVisible: clientEnabled };
  }
  return {
    schemaVersion: CORE_SCHEMA_VERSION,
    appId: 'app_conformance',
    env: 'prod',
    version: 1,
    audience: 'server',
    delivery: { ttlSeconds: 30, etag: '"v1"', generatedAt: '2026-01-01T00:00:00.000Z', pollIntervalSeconds: 30 },
    privacy: { privateAttributes: [], clientMetadataKeys: [] },
    flags,
    experiments: suite.experiments ?? [],
  };
}

function runSuite(suite: ConformanceSuite, set: CompiledFlagSet) {
  for (const c of suite.cases) {
    const result = set.evaluate(c.flag, c.context, c.expectedType);
    assert.deepEqual(
      conformanceMismatches(c.expect, result),
      [],
      `${suite.name} / ${c.name}: ${JSON.stringify(result)}`,
    );
    assert.equal(result.key, c.flag);
  }
}

describe('conformance vectors', () => {
  for (const suite of vectors.suites) {
    test(`${suite.name}: compiled as a flag set`, () => {
      runSuite(suite, compileFlagSet(suite.flags.map(withFlagDefaults), suite.experiments ?? []));
    });
    test(`${suite.name}: compiled as a core/v1 document`, () => {
      runSuite(suite, compileDocument(JSON.parse(JSON.stringify(documentOf(suite)))));
    });
    test(`${suite.name}: compiled as a served core/v1 document (no validation)`, () => {
      runSuite(suite, compileServedDocument(JSON.parse(JSON.stringify(documentOf(suite)))));
    });
  }

  for (const invalid of vectors.invalid) {
    test(`refused: ${invalid.name}`, () => {
      const flags = invalid.flags.map((f) => withFlagDefaults(f as Parameters<typeof withFlagDefaults>[0]));
      assert.throws(
        () => compileFlagSet(flags),
        (error: unknown) => {
          assert.ok(error instanceof ConfigInvalidError);
          for (const wanted of invalid.issues) {
            assert.ok(
              error.issues.some(
                (i) =>
                  i.path === wanted.path &&
                  i.code === wanted.code &&
                  (wanted.flagKey === undefined || i.flagKey === wanted.flagKey),
              ),
              `${JSON.stringify(wanted)} among ${JSON.stringify(error.issues)}`,
            );
          }
          return true;
        },
      );
    });
  }

  test('cover every operator, every reason, every fallback class and every experiment reason', () => {
    const cases = vectors.suites.flatMap((s) => s.cases);
    const operators = new Set(
      vectors.suites.flatMap((s) =>
        s.flags.flatMap((f) => (f.rules ?? []).flatMap((r) => r.conditions.map((c) => c.operator))),
      ),
    );
    assert.deepEqual(
      [...OPERATORS].filter((o) => !operators.has(o)),
      [],
    );
    const reasons = new Set(cases.map((c) => c.expect.reason));
    assert.deepEqual(
      [...REASONS].filter((r) => !reasons.has(r)),
      [],
    );
    const fallbacks = new Set(cases.map((c) => c.expect.fallbackClass ?? 'none'));
    // config_invalid is a whole set that does not compile: the invalid configurations cover it.
    for (const fallback of [
      'none',
      'flag_not_found',
      'type_mismatch',
      'targeting_key_missing',
      'dependency_unmet',
      'invalid_context',
    ]) {
      assert.ok(fallbacks.has(fallback as never), fallback);
    }
    const experimentReasons = new Set(cases.map((c) => c.expect.experiment?.reason).filter((r) => r !== undefined));
    assert.deepEqual([...experimentReasons].sort(), [
      'assigned',
      'holdout',
      'layer_excluded',
      'not_allocated',
      'not_targeted',
    ]);
    const keys = vectors.suites.flatMap((s) => s.flags.map((f) => f.key));
    assert.equal(new Set(keys).size, keys.length, 'flag keys are unique across suites');
  });

  test('a runner that compares nothing would fail: a wrong expectation is reported', () => {
    const suite = vectors.suites.find((s) => s.name === 'variants')!;
    const set = compileFlagSet(suite.flags.map(withFlagDefaults));
    const result = set.evaluate('cv-variants', { targetingKey: 'user-1' });
    assert.deepEqual(conformanceMismatches({ value: { color: 'red' }, reason: 'SPLIT', variant: 'green' }, result), [
      'variant: expected "green", got "red"',
    ]);
    assert.deepEqual(conformanceMismatches({ value: { color: 'red' }, reason: 'SPLIT' }, result), [
      'variant: expected absent, got "red"',
    ]);
    assert.deepEqual(conformanceMismatches({ value: { color: 'blue' }, reason: 'SPLIT', variant: 'red' }, result), [
      'value: expected {"color":"blue"}, got {"color":"red"}',
    ]);
  });
});

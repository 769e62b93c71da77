// The OpenFeature mapping (openfeature.ts) and the core/v1 document helpers (document.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileDocument,
  compileFlagSet,
  ConfigInvalidError,
  flagDefinitionsOf,
  flattenMetadata,
  openFeatureReason,
  toOpenFeature,
  withFlagDefaults,
  type EvaluationResult,
  type ServedExperiment,
} from '../src/index.js';

const flags = [
  withFlagDefaults({ key: 'static', type: 'bool', value: true }),
  withFlagDefaults({
    key: 'targeted',
    type: 'string',
    value: 'base',
    rules: [
      { id: 'pro', conditions: [{ attribute: 'plan', operator: 'in', values: ['pro'] }], serve: { value: 'pro' } },
    ],
  }),
  withFlagDefaults({
    key: 'split',
    type: 'string',
    value: 'base',
    variants: [
      { key: 'a', value: 'A', weight: 50 },
      { key: 'b', value: 'B', weight: 50 },
    ],
  }),
  withFlagDefaults({ key: 'off', type: 'number', value: 1, enabled: false, offValue: 0 }),
];
const experiment: ServedExperiment = {
  id: 'exp_1',
  key: 'e',
  flagKey: 'targeted',
  state: 'running',
  iterationId: 'it_1',
  iterationNumber: 1,
  iterationRevision: 3,
  salt: 's',
  allocation: 100,
  variants: [
    { key: 'control', value: 'base', weight: 50 },
    { key: 'treatment', value: 'new', weight: 50 },
  ],
  targeting: [],
  layer: null,
  holdout: null,
};
const set = compileFlagSet(flags);

describe('toOpenFeature', () => {
  test('successes keep value, variant and reason; DEFAULT is STATIC only in the ofrep dialect', () => {
    const split = set.evaluate('split', { targetingKey: 'user-1' });
    assert.deepEqual(toOpenFeature(split, { team: 'web' }), {
      key: 'split',
      value: split.value,
      variant: split.variant,
      reason: 'SPLIT',
      flagMetadata: { team: 'web' },
    });
    const fallthrough = set.evaluate('targeted', { plan: 'free' });
    assert.equal(fallthrough.reason, 'DEFAULT');
    assert.equal(toOpenFeature(fallthrough).reason, 'DEFAULT');
    assert.equal(toOpenFeature(fallthrough, undefined, 'ofrep').reason, 'STATIC');
    assert.equal(toOpenFeature(set.evaluate('off')).reason, 'DISABLED');
    assert.equal(toOpenFeature(set.evaluate('targeted', { plan: 'pro' })).reason, 'TARGETING_MATCH');
    assert.equal(openFeatureReason('ERROR'), 'ERROR');
  });

  test('a split without a targeting key becomes TARGETING_KEY_MISSING, so the caller default applies', () => {
    const result = set.evaluate('split', {});
    assert.equal(result.fallbackClass, 'targeting_key_missing');
    const resolution = toOpenFeature(result);
    assert.equal(resolution.reason, 'ERROR');
    assert.equal(resolution.errorCode, 'TARGETING_KEY_MISSING');
    assert.equal(resolution.value, undefined);
    assert.match(resolution.errorMessage!, /targetingKey/);
  });

  test('error codes: OpenFeature keeps every code, OFREP narrows TYPE_MISMATCH to GENERAL', () => {
    const mismatch = set.evaluate('static', {}, 'string');
    assert.equal(toOpenFeature(mismatch).errorCode, 'TYPE_MISMATCH');
    assert.equal(toOpenFeature(mismatch, undefined, 'ofrep').errorCode, 'GENERAL');
    assert.equal(toOpenFeature(set.evaluate('nope')).errorCode, 'FLAG_NOT_FOUND');
    assert.equal(toOpenFeature(set.evaluate('nope'), undefined, 'ofrep').errorCode, 'FLAG_NOT_FOUND');
    const invalid = set.evaluate('static', { targetingKey: 5 } as never);
    assert.deepEqual(
      [toOpenFeature(invalid).errorCode, toOpenFeature(invalid, undefined, 'ofrep').errorCode],
      ['INVALID_CONTEXT', 'INVALID_CONTEXT'],
    );
    const bare: EvaluationResult = { key: 'k', value: undefined, reason: 'ERROR', fallbackClass: 'none' };
    assert.deepEqual(toOpenFeature(bare), {
      key: 'k',
      value: undefined,
      reason: 'ERROR',
      errorCode: 'GENERAL',
      errorMessage: 'the flag could not be evaluated',
      flagMetadata: undefined,
    });
  });

  test('an experiment assignment adds flat metadata keys to the flag metadata', () => {
    const withExperiment = compileFlagSet(flags, [experiment]);
    const resolution = toOpenFeature(withExperiment.evaluate('targeted', { targetingKey: 'user-1' }), {
      owner: 'growth',
    });
    assert.deepEqual(resolution.flagMetadata, {
      owner: 'growth',
      experimentId: 'exp_1',
      iterationId: 'it_1',
      iterationRevision: 3,
      inExperiment: true,
    });
    const noKey = toOpenFeature(withExperiment.evaluate('targeted', {}));
    assert.deepEqual(noKey.flagMetadata, {
      experimentId: 'exp_1',
      iterationId: 'it_1',
      iterationRevision: 3,
      inExperiment: false,
    });
  });
});

describe('flattenMetadata', () => {
  test('keeps strings, finite numbers and booleans, filtered by the allowed keys', () => {
    const metadata = {
      team: 'web',
      ticket: 42,
      public: true,
      deep: { a: 1 },
      list: [1],
      nothing: null,
      huge: Number.POSITIVE_INFINITY,
    };
    assert.deepEqual(flattenMetadata(metadata), { team: 'web', ticket: 42, public: true });
    assert.deepEqual(flattenMetadata(metadata, new Set(['team', 'deep'])), { team: 'web' });
    assert.equal(flattenMetadata({ deep: {} }), undefined);
    assert.equal(flattenMetadata(metadata, new Set()), undefined);
    assert.ok(Object.isFrozen(flattenMetadata(metadata)));
  });
});

describe('core/v1 documents', () => {
  const document = {
    schemaVersion: 'core/v1',
    appId: 'app_1',
    env: 'prod',
    version: 4,
    audience: 'server',
    delivery: { ttlSeconds: 30, etag: '"x"', generatedAt: '2026-01-01T00:00:00Z', pollIntervalSeconds: 30 },
    privacy: { privateAttributes: [], clientMetadataKeys: [] },
    flags: {
      b: {
        type: 'bool',
        value: true,
        enabled: true,
        offValue: true,
        clientVisible: true,
        rollout: null,
        variants: null,
        rules: [],
        overrides: {},
        dependencies: [],
        metadata: {},
      },
      a: {
        type: 'string',
        value: 'x',
        enabled: true,
        offValue: 'x',
        clientVisible: false,
        rollout: null,
        variants: null,
        rules: [],
        overrides: {},
        dependencies: [{ flag: 'b', value: true }],
        metadata: {},
      },
    },
    experiments: [] as unknown[],
  };

  test('flagDefinitionsOf names each flag by its key and turns clientVisible back into clientEnabled', () => {
    const definitions = flagDefinitionsOf(document as never);
    assert.deepEqual(
      definitions.map((d) => [d.key, d.clientEnabled, d.description]),
      [
        ['b', true, ''],
        ['a', false, ''],
      ],
    );
    assert.ok(!('clientVisible' in definitions[0]!));
  });

  test('compileDocument evaluates a valid document', () => {
    const compiled = compileDocument(document);
    assert.deepEqual(compiled.keys(), ['b', 'a']);
    assert.equal(compiled.evaluate('a', {}).value, 'x');
  });

  test('compileDocument refuses what is not a core/v1 document, saying where', () => {
    const refused = (doc: unknown) => {
      try {
        compileDocument(doc);
      } catch (error) {
        assert.ok(error instanceof ConfigInvalidError);
        return error.issues.map((i) => `${i.path} ${i.code}`);
      }
      assert.fail('accepted');
    };
    assert.deepEqual(refused(null), [' invalid_document']);
    assert.deepEqual(refused({ ...document, schemaVersion: 'core/v2' }), ['/schemaVersion invalid_document']);
    assert.deepEqual(refused({ ...document, flags: [] }), ['/flags invalid_document']);
    assert.deepEqual(refused({ ...document, flags: { 'a/b': 5 } }), ['/flags/a~1b invalid_document']);
    assert.deepEqual(refused({ ...document, experiments: {} }), ['/experiments invalid_document']);
    assert.deepEqual(refused({ ...document, experiments: [{ ...experiment, variants: 'x' }] }), [
      '/experiments/0 invalid_document',
    ]);
    assert.deepEqual(
      refused({
        ...document,
        experiments: [{ ...experiment, targeting: [{ attribute: 'a', operator: 'like', values: [] }] }],
      }),
      ['/experiments/0/targeting/0/operator unknown_operator'],
    );
    // The flags themselves are validated like any flag set: a prerequisite on a missing flag.
    assert.deepEqual(refused({ ...document, flags: { a: document.flags.a } }), [
      '/dependencies/0/flag unknown_dependency',
    ]);
  });
});

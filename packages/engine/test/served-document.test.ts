// compileServedDocument (decision 0056): what the server serves compiles without validation; what
// is not shaped like a served document is refused with a path; a document with invalid values
// still never makes evaluate() throw. (The conformance vectors run through it in conformance.test.ts.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileServedDocument,
  ConfigInvalidError,
  CORE_SCHEMA_VERSION,
  installedRegexEngine,
  installRegexEngine,
  type CoreDocument,
  type CoreFlag,
} from '../src/core.js';

function flag(fields: Partial<CoreFlag> = {}): CoreFlag {
  return {
    type: 'bool',
    value: false,
    enabled: true,
    offValue: false,
    clientVisible: true,
    rollout: null,
    variants: null,
    rules: [],
    overrides: {},
    dependencies: [],
    metadata: {},
    ...fields,
  };
}

function documentOf(flags: Record<string, unknown>): CoreDocument {
  return {
    schemaVersion: CORE_SCHEMA_VERSION,
    appId: 'app_served',
    env: 'prod',
    version: 1,
    audience: 'server',
    delivery: { ttlSeconds: 30, etag: '"v1"', generatedAt: '2026-01-01T00:00:00.000Z', pollIntervalSeconds: 30 },
    privacy: { privateAttributes: [], clientMetadataKeys: [] },
    flags: flags as Record<string, CoreFlag>,
    experiments: [],
  };
}

const refusal = (path: string) => (error: unknown) => {
  assert.ok(error instanceof ConfigInvalidError);
  assert.deepEqual(
    error.issues.map((i) => [i.path, i.code]),
    [[path, 'invalid_document']],
  );
  return true;
};

describe('compileServedDocument', () => {
  test('a served document evaluates as the server does', () => {
    const compiled = compileServedDocument(
      documentOf({
        beta: flag({
          rules: [
            { id: 'r1', conditions: [{ attribute: 'plan', operator: 'in', values: ['beta'] }], serve: { value: true } },
          ],
        }),
      }),
    );
    assert.equal(compiled.evaluate('beta', { plan: 'beta' }).value, true);
    assert.equal(compiled.evaluate('beta', { plan: 'free' }).value, false);
    assert.equal(compiled.evaluate('beta').reason, 'DEFAULT');
  });

  test('what is not shaped like a served flag is refused, naming the flag', () => {
    assert.throws(() => compileServedDocument(documentOf({ a: flag({ type: 'date' as never }) })), refusal('/flags/a'));
    assert.throws(
      () =>
        compileServedDocument(
          documentOf({ 'a/b': flag({ rules: [{ id: 'r', conditions: 'plan' as never, serve: { value: true } }] }) }),
        ),
      refusal('/flags/a~1b'),
    );
    assert.throws(
      () => compileServedDocument(documentOf({ a: flag({ variants: [{ key: 'x', value: true }] as never }) })),
      refusal('/flags/a'),
    );
    assert.throws(
      () => compileServedDocument(documentOf({ a: flag({ rollout: { value: true } as never }) })),
      refusal('/flags/a'),
    );
    assert.throws(
      () => compileServedDocument(documentOf({ a: flag({ overrides: null as never }) })),
      refusal('/flags/a'),
    );
    assert.throws(() => compileServedDocument({ schemaVersion: 'core/v2', flags: {} }), refusal('/schemaVersion'));
  });

  test('invalid values compile, and evaluation still never throws (a prerequisite cycle answers ERROR)', () => {
    const compiled = compileServedDocument(
      documentOf({
        a: flag({ dependencies: [{ flag: 'b', value: true }] }),
        b: flag({ dependencies: [{ flag: 'a', value: true }] }),
      }),
    );
    for (const context of [undefined, {}, { targetingKey: 'u' }]) {
      const result = compiled.evaluate('a', context);
      assert.equal(result.reason, 'ERROR');
      assert.equal(result.errorCode, 'GENERAL');
    }
  });

  test('a flag using `matches` without a regex engine is refused, as by compileDocument', (t) => {
    // The engine is process-wide, and a test file sharing this process may have installed re2js.
    const previous = installedRegexEngine();
    installRegexEngine(null);
    t.after(() => installRegexEngine(previous));
    const document = documentOf({
      staff: flag({
        rules: [
          {
            id: 'r',
            conditions: [{ attribute: 'email', operator: 'matches', values: ['@example\\.com$'] }],
            serve: { value: true },
          },
        ],
      }),
    });
    assert.throws(
      () => compileServedDocument(document),
      (error: unknown) =>
        error instanceof ConfigInvalidError &&
        error.issues[0]!.code === 'regex_engine_missing' &&
        error.issues[0]!.flagKey === 'staff',
    );
  });
});

// The engine's shared conformance vectors (@ensign/engine/conformance.json) through the server:
// every suite's flags and served experiments are stored in one environment, and every case is
// evaluated through POST /api/v1/evaluate and through OFREP, answering what the vectors say (OFREP
// in its dialect of the OpenFeature mapping). Every invalid configuration is refused by
// POST /api/v1/advanced-config/inspect with the issues the vectors list. The SDK and the OpenFeature
// providers run the same file, so remote and local evaluation cannot drift apart.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { flattenMetadata, toOpenFeature, withFlagDefaults, type FlagType, type ServedExperiment } from '@ensign/engine';
import { conformanceMismatches, expectedResult, type ConformanceVectors } from '@ensign/engine/conformance';
import { createChangeNotifier } from '../../src/db/notifications.js';
import { inTransaction } from '../../src/db/transaction.js';
import { createConfigStateStore } from '../../src/modules/core/config/index.js';
import { environmentFixture, type EnvironmentFixture } from '../helpers/delivery-fixtures.js';
import { buildTestApp, dialects, type TestApp } from '../helpers/test-app.js';
import { evaluate } from '../../src/modules/delivery/evaluation/evaluation.fixtures.js';
import { single } from '../../src/modules/delivery/ofrep/ofrep.fixtures.js';
import { advancedClient } from '../../src/modules/delivery/sdk-document/advanced.test-client.js';

// Resolved like any dependency's file: through the package's exports.
const vectors: ConformanceVectors = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@ensign/engine/conformance.json'), 'utf8'),
);

const DEFAULT_OF_TYPE: Record<FlagType, unknown> = { bool: false, string: '', number: 0, json: {} };

/** Every suite's flags and experiments in the fixture's environment, in one new version. */
async function storeVectors(test: TestApp, fx: EnvironmentFixture): Promise<void> {
  const notifier = createChangeNotifier(test.database.handle, test.database.pgSchema);
  try {
    const store = createConfigStateStore(test.database.handle.db, notifier);
    await inTransaction(test.database.handle.db, async (trx) => {
      const locked = await store.lock(trx, fx.target);
      const state = structuredClone(locked.state);
      const at = new Date().toISOString();
      const experiments: Record<string, ServedExperiment> = {};
      for (const suite of vectors.suites) {
        for (const flag of suite.flags)
          state.flags[flag.key] = { ...withFlagDefaults(flag), createdAt: at, updatedAt: at };
        for (const experiment of suite.experiments ?? []) experiments[experiment.id] = experiment;
      }
      state.experiments = experiments;
      await store.commit(trx, fx.target, locked, {
        state,
        changeId: null,
        operation: 'test.conformance',
        authority: { type: 'system' },
      });
    });
  } finally {
    await notifier.close();
  }
}

const metadataOf = new Map(
  vectors.suites.flatMap((s) => s.flags.map((f) => [f.key, flattenMetadata(f.metadata ?? {})] as const)),
);

for (const dialect of dialects) {
  describe(`the engine's conformance vectors through the server on ${dialect}`, () => {
    test('POST /api/v1/evaluate and OFREP answer every case as the vectors say', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const fx = await environmentFixture(app.app);
      await storeVectors(app, fx);
      let ofrepCases = 0;
      for (const suite of vectors.suites) {
        for (const c of suite.cases) {
          const label = `${suite.name} / ${c.name}`;
          const payload = {
            flagKey: c.flag,
            context: c.context ?? {},
            ...(c.expectedType ? { defaultValue: DEFAULT_OF_TYPE[c.expectedType] } : {}),
          };
          const res = await evaluate(app.app, fx.sdk, payload);
          assert.equal(res.statusCode, 200, `${label}: ${res.body}`);
          const detail = res.json();
          assert.deepEqual(conformanceMismatches(c.expect, detail), [], `${label}: ${res.body}`);
          if (c.expect.reason === 'ERROR' && c.expectedType)
            assert.deepEqual(detail.value, DEFAULT_OF_TYPE[c.expectedType], `${label}: the default is served`);

          // OFREP requests carry no expected type: those cases are for typed callers only.
          if (c.expectedType !== undefined) continue;
          ofrepCases++;
          const expected = toOpenFeature(expectedResult(c.flag, c.expect), metadataOf.get(c.flag), 'ofrep');
          const answer = await single(app.app, c.flag, { context: c.context ?? {} }, { token: fx.sdk });
          const body = answer.json();
          if (expected.reason === 'ERROR') {
            assert.equal(
              answer.statusCode,
              expected.errorCode === 'FLAG_NOT_FOUND' ? 404 : 400,
              `${label}: ${answer.body}`,
            );
            assert.equal(body.errorCode, expected.errorCode, `${label}: ${answer.body}`);
            assert.equal(body.key, c.flag);
          } else {
            assert.equal(answer.statusCode, 200, `${label}: ${answer.body}`);
            const { key, value, reason, variant, flagMetadata: metadata } = expected;
            assert.deepEqual(body, JSON.parse(JSON.stringify({ key, value, reason, variant, metadata })), label);
          }
        }
      }
      assert.ok(ofrepCases > 100, `${ofrepCases} cases through OFREP`);
    });

    test('inspect refuses every invalid configuration with the issues the vectors list', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const c = await advancedClient(app);
      for (const invalid of vectors.invalid) {
        const flags: Record<string, unknown> = {};
        for (const flag of invalid.flags as Array<{ key: string }>) {
          const { key, ...fields } = flag;
          flags[key] = fields;
        }
        const res = await c.inspect({ baseVersion: 0, document: { flags } });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.valid, false, invalid.name);
        for (const issue of invalid.issues) {
          const path = `/document/flags/${issue.flagKey}${issue.path}`;
          assert.ok(
            body.errors.some((e: { path: string; code?: string }) => e.path === path && e.code === issue.code),
            `${invalid.name}: ${path} ${issue.code} in ${JSON.stringify(body.errors)}`,
          );
        }
      }
    });
  });
}

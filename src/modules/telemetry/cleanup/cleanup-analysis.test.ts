import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyseCleanup, servingShapeOf, type CleanupEnvironmentInput, type CleanupFlag } from './cleanup-analysis.js';

const NOW = Date.parse('2026-11-23T00:00:00.000Z');
const OLD = '2026-09-01T00:00:00.000Z';
const RECENT = '2026-11-20T00:00:00.000Z';

function flag(key: string, fields: Partial<CleanupFlag> = {}): CleanupFlag {
  return {
    key,
    type: 'bool',
    value: false,
    rollout: null,
    variants: null,
    rules: [],
    overrides: {},
    dependencies: [],
    updatedAt: OLD,
    ...fields,
  };
}

function env(
  name: string,
  flags: CleanupFlag[],
  extra: Partial<CleanupEnvironmentInput> = {},
): CleanupEnvironmentInput {
  return {
    env: name,
    flags: Object.fromEntries(flags.map((f) => [f.key, f])),
    lastChanges: new Map(),
    evaluations: new Map(),
    experiments: new Map(),
    rolloutPlans: new Map(),
    ...extra,
  };
}

describe('cleanup analysis', () => {
  it('names each serving shape', () => {
    assert.equal(servingShapeOf(flag('a'), false).shape, 'static');
    assert.deepEqual(servingShapeOf(flag('a', { rollout: { percentage: 100, value: true } }), false), {
      shape: 'fully_rolled_out',
      servedValue: true,
      single: true,
    });
    assert.equal(servingShapeOf(flag('a', { rollout: { percentage: 0, value: true } }), false).servedValue, false);
    assert.equal(servingShapeOf(flag('a', { rollout: { percentage: 50, value: true } }), false).shape, 'split');
    assert.equal(
      servingShapeOf(
        flag('a', {
          variants: [
            { key: 'on', value: true, weight: 50 },
            { key: 'off', value: false, weight: 50 },
          ],
        }),
        false,
      ).shape,
      'split',
    );
    assert.equal(
      servingShapeOf(
        flag('a', {
          variants: [
            { key: 'on', value: true, weight: 100 },
            { key: 'off', value: false, weight: 0 },
          ],
        }),
        false,
      ).shape,
      'fully_rolled_out',
    );
    assert.equal(servingShapeOf(flag('a', { overrides: { u1: true } }), false).shape, 'targeted');
    assert.equal(servingShapeOf(flag('a', { dependencies: [{ flag: 'b', value: true }] }), false).shape, 'targeted');
    assert.equal(servingShapeOf(flag('a'), true).shape, 'experiment');
    assert.deepEqual(
      servingShapeOf(flag('a', { enabled: false, offValue: true, rollout: { percentage: 50, value: true } }), true),
      { shape: 'static', servedValue: true, single: true },
    );
  });

  it('finds a flag ready when it serves one value everywhere, unchanged and unevaluated', () => {
    const report = analyseCleanup({
      envs: [
        env('dev', [flag('done', { rollout: { percentage: 100, value: true } })]),
        env('prod', [flag('done', { value: true })]),
      ],
      codeReferences: [
        { flagKey: 'done', path: 'src/b.ts', line: 9 },
        { flagKey: 'done', path: 'src/a.ts', line: 3 },
      ],
      staleAfterDays: 30,
      now: NOW,
    });
    assert.deepEqual(
      report.readiness.map((r) => [r.flagKey, r.ready]),
      [['done', true]],
    );
    assert.deepEqual(
      report.plan.stages.map((s) => s.steps),
      [
        [{ stage: 'make_static', env: 'dev', flagKey: 'done', value: true }],
        [
          {
            stage: 'remove_code_references',
            flagKey: 'done',
            references: [
              { flagKey: 'done', path: 'src/a.ts', line: 3 },
              { flagKey: 'done', path: 'src/b.ts', line: 9 },
            ],
          },
        ],
        [{ stage: 'delete_flag', flagKey: 'done', envs: ['dev', 'prod'] }],
      ],
    );
    // dev and prod disagree on the default value (false vs true): reconcile says so.
    assert.deepEqual(
      report.reconcile.inconsistentAcrossEnvs.map((i) => i.flagKey),
      ['done'],
    );
    assert.deepEqual(report.reconcile.unreferencedInCode, []);
  });

  it('blocks on recent changes, evaluations, several values, differing values, experiments and rollouts', () => {
    const report = analyseCleanup({
      envs: [
        env(
          'dev',
          [
            flag('recent', { updatedAt: RECENT }),
            flag('used'),
            flag('split', { rollout: { percentage: 10, value: true } }),
            flag('differs'),
            flag('exp'),
            flag('rolling'),
          ],
          {
            evaluations: new Map([['used', { count: 12, lastSeenAt: RECENT }]]),
            experiments: new Map([['exp', ['exp_1']]]),
            rolloutPlans: new Map([['rolling', ['rop_1']]]),
          },
        ),
        env('prod', [flag('differs', { value: true })]),
      ],
      codeReferences: undefined,
      staleAfterDays: 30,
      now: NOW,
    });
    const codes = Object.fromEntries(report.readiness.map((r) => [r.flagKey, r.blockers.map((b) => b.code)]));
    assert.deepEqual(codes, {
      differs: ['values_differ_across_envs'],
      exp: ['serves_several_values', 'experiment_in_progress'],
      recent: ['changed_recently'],
      rolling: ['rollout_in_progress'],
      split: ['serves_several_values'],
      used: ['recently_evaluated'],
    });
    assert.equal(report.reconcile.unreferencedInCode, null);
    assert.deepEqual(
      report.plan.stages.map((s) => s.steps.length),
      [0, 0, 0],
    );
  });

  it('judges staleness at the given instant, and the journal change wins over updatedAt', () => {
    const input = (now: number) => ({
      envs: [
        env('dev', [flag('f')], {
          lastChanges: new Map([
            ['f', { at: '2026-11-01T00:00:00.000Z', changeId: 'chg_1', operation: 'flag.update' }],
          ]),
        }),
      ],
      codeReferences: [],
      staleAfterDays: 30,
      now,
    });
    assert.equal(analyseCleanup(input(NOW)).readiness[0]!.ready, false);
    assert.equal(analyseCleanup(input(Date.parse('2026-12-02T00:00:00.000Z'))).readiness[0]!.ready, true);
    assert.equal(analyseCleanup(input(NOW)).inventory[0]!.lastChange!.changeId, 'chg_1');
  });

  it('keeps a prerequisite while a dependent stays, and deletes dependents first when both go', () => {
    const staying = analyseCleanup({
      envs: [
        env('dev', [
          flag('base'),
          flag('child', { dependencies: [{ flag: 'base', value: false }], rules: [], updatedAt: RECENT }),
        ]),
      ],
      codeReferences: [],
      staleAfterDays: 30,
      now: NOW,
    });
    assert.deepEqual(
      staying.readiness.find((r) => r.flagKey === 'base')!.blockers.map((b) => b.code),
      ['has_dependents'],
    );

    // A dependent switched off serves its offValue to everyone: both go, the dependent first.
    const going = analyseCleanup({
      envs: [
        env('dev', [
          flag('base'),
          flag('child', { enabled: false, offValue: true, dependencies: [{ flag: 'base', value: false }] }),
        ]),
      ],
      codeReferences: [],
      staleAfterDays: 30,
      now: NOW,
    });
    assert.deepEqual(
      going.readiness.map((r) => [r.flagKey, r.ready]),
      [
        ['base', true],
        ['child', true],
      ],
    );
    assert.deepEqual(
      going.plan.stages[2]!.steps.map((s) => s.flagKey),
      ['child', 'base'],
    );
    assert.deepEqual(going.plan.stages[0]!.steps, [
      { stage: 'make_static', env: 'dev', flagKey: 'child', value: true },
    ]);
  });

  it('reconciles code references with the service and is deterministic', () => {
    const input = {
      envs: [env('dev', [flag('b'), flag('a', { updatedAt: RECENT })])],
      codeReferences: [{ flagKey: 'ghost', path: 'x.ts' }, { flagKey: 'a' }],
      staleAfterDays: 30,
      now: NOW,
    };
    const one = analyseCleanup(input);
    assert.deepEqual(one.reconcile.missingInService, [
      { flagKey: 'ghost', references: [{ flagKey: 'ghost', path: 'x.ts' }] },
    ]);
    assert.deepEqual(one.reconcile.unreferencedInCode, ['b']);
    assert.equal(JSON.stringify(analyseCleanup(input)), JSON.stringify(one));
    assert.match(one.plan.digest, /^[0-9a-f]{64}$/);
  });
});

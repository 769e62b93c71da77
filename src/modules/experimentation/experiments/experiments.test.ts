import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, suiteTestApp } from '../../../../test/helpers/test-app.js';
import { expectError, expectValidation, uniqueKey } from '../../../../test/helpers/fixtures.js';
import { journalOf } from '../../core/flags/flags.test-client.js';
import { bulk, single } from '../../delivery/ofrep/ofrep.fixtures.js';
import { compileFlagSet, withFlagDefaults, type FlagDefinition } from '@ensign/engine';
import { CHECKOUT_VARIANTS, experimentsClient, type ExperimentsClient } from './experiments.test-client.js';

const SUBJECTS = Array.from({ length: 300 }, (_, i) => `user-${i}`);

/** Variant (or null when not in the experiment) of every subject, evaluated at `version` or later. */
async function assignments(client: ExperimentsClient, version: number): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const targetingKey of SUBJECTS) {
    const detail = await client.evaluate('checkout', { targetingKey }, version);
    out.set(targetingKey, detail.experiment?.inExperiment ? detail.experiment.variant : null);
  }
  return out;
}

for (const dialect of dialects) {
  describe(`experiments on ${dialect}`, () => {
    // Each test makes its own user and app, so they share one app.
    const shared = suiteTestApp({ dialect });
    test('start, ramp 10 → 50 %, pause, resume, iterate: through evaluation and OFREP', async () => {
      const { app } = shared();
      const client = await experimentsClient(app);
      const draft = await client.create({ allocation: 10, hypothesis: 'One page converts better' });
      assert.match(draft.id, /^exp_/);
      assert.equal(draft.state, 'draft');
      assert.equal(draft.revision, 1);
      assert.equal(draft.currentIteration, null);
      assert.deepEqual(draft.analysis, {
        alpha: 0.05,
        sequential: false,
        sequentialTuning: 5000,
        cuped: false,
        minimumUnitsPerVariant: 100,
      });
      const before = await client.configVersion();

      const started = await client.served(draft.id, 'transition', { to: 'running' });
      assert.equal(started.version, before + 1, 'starting raises the config version');
      assert.match(started.changeId, /^chg_/);
      const iteration = started.experiment.currentIteration;
      assert.deepEqual(
        { ...iteration, id: undefined, salt: undefined, startedAt: undefined },
        {
          id: undefined,
          number: 1,
          revision: 1,
          salt: undefined,
          allocation: 10,
          startedAt: undefined,
          state: 'running',
        },
      );
      assert.match(iteration.id, /^itr_/);

      const at10 = await assignments(client, started.version);
      const in10 = [...at10].filter(([, v]) => v !== null);
      assert.ok(in10.length > 10 && in10.length < 60, `about 10 % assigned: ${in10.length}`);
      const detail = await client.evaluate('checkout', { targetingKey: in10[0]![0] });
      assert.equal(detail.reason, 'SPLIT');
      assert.equal(detail.variant, detail.experiment.variant);
      assert.equal(detail.value, CHECKOUT_VARIANTS.find((v) => v.key === detail.variant)!.value);
      assert.deepEqual(
        { ...detail.experiment, variant: undefined },
        {
          id: draft.id,
          iterationId: iteration.id,
          iterationRevision: 1,
          variant: undefined,
          inExperiment: true,
          reason: 'assigned',
        },
      );
      const outside = await client.evaluate('checkout', { targetingKey: [...at10].find(([, v]) => v === null)![0] });
      assert.deepEqual(
        [outside.value, outside.experiment.reason, outside.experiment.inExperiment],
        ['classic', 'not_allocated', false],
      );
      assert.equal((await client.evaluate('checkout', { targetingKey: 'vip-1' })).value, 'vip', 'overrides come first');

      const ofrep = await single(app, 'checkout', { context: { targetingKey: in10[0]![0] } }, { token: client.sdk });
      assert.equal(ofrep.statusCode, 200, ofrep.body);
      assert.deepEqual(ofrep.json(), {
        key: 'checkout',
        value: detail.value,
        reason: 'SPLIT',
        variant: detail.variant,
        metadata: { experimentId: draft.id, iterationId: iteration.id, iterationRevision: 1, inExperiment: true },
      });

      const bulkAnswer = await bulk(
        app,
        { context: { targetingKey: [...at10].find(([, v]) => v === null)![0] } },
        { token: client.pub },
      );
      assert.equal(bulkAnswer.statusCode, 200, bulkAnswer.body);
      const inBulk = bulkAnswer.json().flags.find((f: any) => f.key === 'checkout');
      assert.equal(inBulk, undefined, 'a flag hidden from pub_ keys stays hidden');
      const serverBulk = await bulk(
        app,
        { context: { targetingKey: [...at10].find(([, v]) => v === null)![0] } },
        { token: client.sdk },
      );
      assert.deepEqual(serverBulk.json().flags.find((f: any) => f.key === 'checkout').metadata, {
        experimentId: draft.id,
        iterationId: iteration.id,
        iterationRevision: 1,
        inExperiment: false,
      });

      const ramped = await client.served(draft.id, 'ramp', { allocation: 50 });
      assert.equal(ramped.version, started.version + 1);
      assert.deepEqual(
        [
          ramped.experiment.currentIteration.id,
          ramped.experiment.currentIteration.revision,
          ramped.experiment.allocation,
        ],
        [iteration.id, 2, 50],
      );
      const at50 = await assignments(client, ramped.version);
      for (const [subject, variant] of in10) assert.equal(at50.get(subject), variant, `${subject} keeps its variant`);
      const in50 = [...at50].filter(([, v]) => v !== null).length;
      assert.ok(in50 > 110 && in50 < 190, `about 50 % assigned: ${in50}`);
      assert.equal((await client.evaluate('checkout', { targetingKey: in10[0]![0] })).experiment.iterationRevision, 2);

      const paused = await client.served(draft.id, 'transition', { to: 'paused' });
      assert.equal(paused.version, ramped.version + 1);
      const whilePaused = await client.evaluate('checkout', { targetingKey: in10[0]![0] }, paused.version);
      assert.deepEqual(
        [whilePaused.value, whilePaused.reason, whilePaused.experiment],
        ['classic', 'DEFAULT', undefined],
        'a paused experiment assigns nobody',
      );
      expectError(
        await client.post(`/api/v1/experiments/${draft.id}/transition`, {
          revision: paused.experiment.revision,
          to: 'paused',
        }),
        409,
        'invalid_transition',
      );

      const resumed = await client.served(draft.id, 'transition', { to: 'running' });
      assert.deepEqual(
        await assignments(client, resumed.version),
        at50,
        'resuming restores exactly the same assignments',
      );
      await client.served(draft.id, 'transition', { to: 'paused' });
      const iterated = await client.served(draft.id, 'iterate');
      assert.equal(iterated.experiment.state, 'running');
      const second = iterated.experiment.currentIteration;
      assert.deepEqual([second.number, second.revision, second.allocation, second.state], [2, 1, 50, 'running']);
      assert.notEqual(second.salt, iteration.salt);
      const reshuffled = await assignments(client, iterated.version);
      const moved = SUBJECTS.filter((s) => reshuffled.get(s) !== at50.get(s)).length;
      assert.ok(moved > 60, `a new salt re-randomises the population (${moved} of ${SUBJECTS.length} changed)`);
      assert.equal((await client.evaluate('checkout', { targetingKey: 'user-1' })).experiment.iterationId, second.id);

      const operations = (await journalOf(app, client.token, client.appId, { resourceType: 'experiment' })).map(
        (c) => c.operation,
      );
      assert.deepEqual(operations, [
        'experiment.iterate',
        'experiment.pause',
        'experiment.resume',
        'experiment.pause',
        'experiment.ramp',
        'experiment.start',
        'experiment.create',
      ]);
      const versions = await client.get('/api/v1/config-versions', { limit: 1 });
      assert.equal(
        versions.json().current.state.experiments[draft.id].iterationId,
        second.id,
        'the served state is part of the config version',
      );
    });

    test('the advanced document (server audience) carries running experiments: a local evaluator assigns as remote evaluation does', async () => {
      const { app } = shared();
      const client = await experimentsClient(app);
      const layer = (await client.post('/api/v1/layers', { key: 'l', name: 'L' })).json().layer;
      const holdout = (await client.post('/api/v1/holdouts', { key: 'h', name: 'H', percentage: 10 })).json().holdout;
      const exp = await client.create({
        allocation: 60,
        layerId: layer.id,
        holdoutId: holdout.id,
        targeting: [{ attribute: 'plan', operator: 'in', values: ['pro', 'team'] }],
      });
      const started = await client.served(exp.id, 'transition', { to: 'running' });
      const paused = await client.create({
        flagKey: 'search',
        variants: [
          { key: 'off', value: false, weight: 50 },
          { key: 'on', value: true, weight: 50 },
        ],
      });
      await client.served(paused.id, 'transition', { to: 'running' });
      const last = await client.served(paused.id, 'transition', { to: 'paused' });

      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/advanced-config',
        headers: { authorization: `Bearer ${client.sdk}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      const doc = res.json();
      assert.equal(doc.version, last.version);
      assert.deepEqual(
        doc.experiments.map((e: any) => [e.id, e.state, e.iterationId]),
        [[exp.id, 'running', started.experiment.currentIteration.id]],
        'running experiments only',
      );
      assert.deepEqual(doc.experiments[0].layer, { id: layer.id, salt: layer.salt, start: 0, end: 6000 });
      assert.deepEqual(doc.experiments[0].holdout, { id: holdout.id, salt: holdout.salt, percentage: 10 });
      const flags: FlagDefinition[] = Object.entries(doc.flags).map(([key, f]: [string, any]) => {
        const { clientVisible, ...rest } = f;
        return withFlagDefaults({ key, ...rest, clientEnabled: clientVisible });
      });
      const local = compileFlagSet(flags, doc.experiments);
      for (let i = 0; i < 120; i++) {
        const context = { targetingKey: `local-${i}`, plan: i % 3 === 0 ? 'free' : 'pro' };
        const remote = await client.evaluate('checkout', context, last.version);
        const mine = local.evaluate('checkout', context);
        assert.deepEqual(
          [mine.value, mine.variant, mine.reason, mine.experiment],
          [remote.value, remote.variant, remote.reason, remote.experiment],
          context.targetingKey,
        );
      }
      const pub = await app.inject({
        method: 'GET',
        url: '/api/v1/advanced-config',
        headers: { authorization: `Bearer ${client.pub}` },
      });
      assert.equal(pub.json().experiments, undefined, 'client documents carry no experiments');
    });

    test('complete with a winner stops assignment; archive; other moves are invalid_transition', async () => {
      const { app } = shared();
      const client = await experimentsClient(app);
      const exp = await client.create();
      expectError(
        await client.post(`/api/v1/experiments/${exp.id}/transition`, { revision: 1, to: 'paused' }),
        409,
        'invalid_transition',
      );
      expectError(
        await client.post(`/api/v1/experiments/${exp.id}/transition`, { revision: 1, to: 'archived' }),
        409,
        'invalid_transition',
      );
      expectError(
        await client.post(`/api/v1/experiments/${exp.id}/ramp`, { revision: 1, allocation: 20 }),
        409,
        'invalid_state',
      );
      expectError(await client.post(`/api/v1/experiments/${exp.id}/iterate`, { revision: 1 }), 409, 'invalid_state');
      const started = await client.served(exp.id, 'transition', { to: 'running' });
      expectError(
        await client.post(`/api/v1/experiments/${exp.id}/iterate`, { revision: started.experiment.revision }),
        409,
        'invalid_state',
      );
      expectValidation(
        await client.post(`/api/v1/experiments/${exp.id}/transition`, {
          revision: started.experiment.revision,
          to: 'completed',
          winner: 'nope',
        }),
        '/winner',
      );
      expectError(
        await client.post(`/api/v1/experiments/${exp.id}/transition`, { revision: 1, to: 'paused' }),
        409,
        'version_conflict',
      );
      const other = await client.create();
      expectError(
        await client.post(`/api/v1/experiments/${other.id}/transition`, { revision: 1, to: 'running' }),
        409,
        'flag_in_experiment',
      );

      const completed = await client.served(exp.id, 'transition', {
        to: 'completed',
        winner: 'treatment',
        reason: 'clear win',
      });
      assert.equal(completed.experiment.state, 'completed');
      assert.equal(completed.experiment.winner, 'treatment');
      assert.deepEqual(
        { ...completed.experiment.lastTransition, at: undefined },
        { from: 'running', to: 'completed', reason: 'clear win', at: undefined },
      );
      assert.equal(completed.experiment.currentIteration.state, 'completed');
      assert.equal(completed.version, started.version + 1);
      const after = await client.evaluate('checkout', { targetingKey: 'user-1' }, completed.version);
      assert.deepEqual(
        [after.value, after.experiment],
        ['classic', undefined],
        'the ordinary value until someone changes the flag',
      );
      const archived = await client.served(exp.id, 'transition', { to: 'archived' });
      assert.equal(archived.changeId, null, 'archiving changes nothing served');
      assert.equal(archived.version, completed.version);
      expectError(
        await client.post(`/api/v1/experiments/${exp.id}/transition`, {
          revision: archived.experiment.revision,
          to: 'running',
        }),
        409,
        'invalid_transition',
      );
      // The flag is free again.
      assert.equal((await client.served(other.id, 'transition', { to: 'running' })).experiment.state, 'running');
    });

    test('patch: revision CAS; served fields only while draft', async () => {
      const { app } = shared();
      const client = await experimentsClient(app);
      const exp = await client.create();
      const patched = await client.patch(`/api/v1/experiments/${exp.id}`, {
        revision: 1,
        allocation: 40,
        variants: [
          { key: 'a', value: 'x', weight: 30 },
          { key: 'b', value: 'y', weight: 70 },
        ],
        analysis: { alpha: 0.01 },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual(
        [
          patched.json().experiment.revision,
          patched.json().experiment.allocation,
          patched.json().experiment.analysis.alpha,
          patched.json().experiment.analysis.minimumUnitsPerVariant,
        ],
        [2, 40, 0.01, 100],
      );
      expectError(
        await client.patch(`/api/v1/experiments/${exp.id}`, { revision: 1, name: 'x' }),
        409,
        'version_conflict',
      );
      expectValidation(
        await client.patch(`/api/v1/experiments/${exp.id}`, { revision: 2, flagKey: 'search' }),
        '/variants/0/value',
      );
      await client.served(exp.id, 'transition', { to: 'running' });
      const current = (await client.get(`/api/v1/experiments/${exp.id}`)).json().experiment;
      const refused = expectError(
        await client.patch(`/api/v1/experiments/${exp.id}`, { revision: current.revision, allocation: 60 }),
        409,
        'experiment_not_draft',
      );
      assert.deepEqual(refused.metadata, { state: 'running', fields: ['allocation'] });
      const renamed = await client.patch(`/api/v1/experiments/${exp.id}`, {
        revision: current.revision,
        name: 'Renamed',
        allocation: 40,
      });
      assert.equal(renamed.statusCode, 200, 'an unchanged served field is not a change');
      assert.equal(renamed.json().experiment.name, 'Renamed');
    });

    test('creation: unknown flag, metric or revision is 400; key and idempotency conflicts are 409', async () => {
      const { app } = shared();
      const client = await experimentsClient(app);
      const base = {
        key: 'exp-a',
        name: 'A',
        flagKey: 'checkout',
        variants: CHECKOUT_VARIANTS,
        allocation: 50,
        primaryMetric: { metricId: client.metricId, revision: 1 },
      };
      expectValidation(await client.post('/api/v1/experiments', { ...base, flagKey: 'missing' }), '/flagKey');
      expectValidation(
        await client.post('/api/v1/experiments', {
          ...base,
          primaryMetric: { metricId: client.metricId, revision: 2 },
        }),
        '/primaryMetric',
      );
      expectValidation(
        await client.post('/api/v1/experiments', {
          ...base,
          guardrailMetrics: [{ metricId: 'met_nope', revision: 1, maxRelativeDegradation: 0.1 }],
        }),
        '/guardrailMetrics/0',
      );
      expectValidation(
        await client.post('/api/v1/experiments', {
          ...base,
          variants: [
            { key: 'a', value: true, weight: 50 },
            { key: 'b', value: 'x', weight: 50 },
          ],
        }),
        '/variants/0/value',
      );
      expectValidation(
        await client.post('/api/v1/experiments', {
          ...base,
          variants: [
            { key: 'a', value: 'x', weight: 40 },
            { key: 'b', value: 'y', weight: 50 },
          ],
        }),
        '/variants',
      );
      expectValidation(
        await client.post('/api/v1/experiments', { ...base, variants: [{ key: 'a', value: 'x', weight: 100 }] }),
      );
      expectValidation(
        await client.post('/api/v1/experiments', {
          ...base,
          targeting: [{ attribute: 'plan', operator: 'lt', values: ['x'] }],
        }),
      );
      expectValidation(await client.post('/api/v1/experiments', { ...base, holdoutId: 'hol_missing' }), '/holdoutId');
      expectValidation(await client.post('/api/v1/experiments', { ...base, allocation: 10.005 }), '/allocation');
      assert.deepEqual((await client.get('/api/v1/experiments')).json().experiments, []);

      const key = uniqueKey();
      const first = await client.post('/api/v1/experiments', base, { idem: key });
      assert.equal(first.statusCode, 201, first.body);
      const replay = await client.post('/api/v1/experiments', base, { idem: key });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, first.body);
      expectError(
        await client.post('/api/v1/experiments', { ...base, name: 'B' }, { idem: key }),
        409,
        'idempotency_conflict',
      );
      expectError(await client.post('/api/v1/experiments', base), 409, 'key_conflict');
      const list = (await client.get('/api/v1/experiments')).json().experiments;
      assert.deepEqual(
        list.map((e: any) => e.key),
        ['exp-a'],
      );
      expectError(await client.get('/api/v1/experiments/exp_missing'), 404, 'not_found');
    });
  });
}

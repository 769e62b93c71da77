// End to end, over real HTTP against a started server: the SDK (@ensign/sdk, real fetch, the real
// change stream) evaluates generated flags for generated contexts exactly as POST /api/v1/evaluate
// and OFREP do (the same engine, so any difference is in delivery: the document, its projection,
// or the SDK). Then a write reaches the SDK through the stream, and the exposures it sends are
// stored by the events route.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flattenMetadata, toOpenFeature } from '@ensign/engine';
import { createClient, type EvaluationContext } from '@ensign/sdk';
import { startEnsign } from './openfeature.fixtures.js';
import { waitFor } from '../helpers/polling.js';

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PLANS = ['free', 'pro', 'beta'];
const COUNTRIES = ['NO', 'SE', 'DE', 'US'];
const VERSIONS = ['1.0.0', '1.2.0', '2.0.0-rc.1', '2.1.0'];

function generatedFlags(next: () => number): Record<string, unknown>[] {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const conditions = () => [
    pick([
      () => ({ attribute: 'plan', operator: 'in', values: [pick(PLANS)] }),
      () => ({ attribute: 'country', operator: 'notIn', values: [pick(COUNTRIES), pick(COUNTRIES)] }),
      () => ({ attribute: 'age', operator: 'gte', values: [Math.floor(next() * 60)] }),
      () => ({ attribute: 'app.version', operator: 'semverGt', values: [pick(VERSIONS)] }),
      () => ({ attribute: 'email', operator: 'endsWith', values: ['@example.com'] }),
    ])(),
  ];
  return Array.from({ length: 24 }, (_, i) => {
    const kind = i % 4;
    const base = { key: `gen-${i}`, clientEnabled: next() < 0.7, metadata: { team: pick(['web', 'growth']) } };
    const rules = Array.from({ length: Math.floor(next() * 3) }, (_, r) => ({
      id: `r${r}`,
      conditions: conditions(),
      serve: {} as Record<string, unknown>,
    }));
    if (kind === 0)
      return {
        ...base,
        type: 'bool',
        value: false,
        rules: rules.map((r) => ({ ...r, serve: { value: true } })),
        ...(next() < 0.5 ? { rollout: { percentage: Math.round(next() * 100), value: true } } : {}),
      };
    if (kind === 1)
      return {
        ...base,
        type: 'string',
        value: 'a',
        rules: rules.map((r) => ({ ...r, serve: { value: pick(['b', 'c']) } })),
        variants: [
          { key: 'x', value: 'x', weight: 30 },
          { key: 'y', value: 'y', weight: 70 },
        ],
      };
    if (kind === 2)
      return {
        ...base,
        type: 'number',
        value: 1,
        rules: rules.map((r) => ({ ...r, serve: { value: Math.floor(next() * 10) } })),
        rollout: { percentage: Math.round(next() * 100), value: 99 },
      };
    return {
      ...base,
      type: 'json',
      value: { n: 0 },
      rules: rules.map((r) => ({ ...r, serve: { value: { n: r.id } } })),
    };
  });
}

function generatedContext(next: () => number, i: number): EvaluationContext {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const context: EvaluationContext = {
    plan: pick(PLANS),
    country: pick(COUNTRIES),
    age: Math.floor(next() * 80),
    app: { version: pick(VERSIONS) },
  };
  if (next() < 0.9) context.targetingKey = `subject-${i}`;
  if (next() < 0.3) context.email = `s${i}@example.com`;
  return context;
}

test('the SDK evaluates as POST /api/v1/evaluate and OFREP do, for generated flags and contexts', async (t) => {
  const ensign = await startEnsign(t);
  const next = random(22);
  const flags = generatedFlags(next);
  for (const flag of flags) await ensign.setFlag(flag);
  const client = createClient({ url: ensign.address, key: ensign.sdk, store: null });
  t.after(() => client.close());
  assert.equal(await client.ready(), 'network');
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${ensign.address}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ensign.sdk}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, path);
    return (await res.json()) as any;
  };
  const metadata = new Map(flags.map((f) => [f.key as string, flattenMetadata(f.metadata as Record<string, unknown>)]));
  let compared = 0;
  for (let i = 0; i < 150; i++) {
    const context = generatedContext(next, i);
    const remote = await post('/api/v1/evaluate', { context });
    assert.equal(remote.version, client.version);
    const ofrep = new Map<string, any>(
      ((await post('/api/ofrep/v1/evaluate/flags', { context })).flags as any[]).map((f) => [f.key, f]),
    );
    for (const answer of remote.results) {
      const local = client.evaluate(answer.key, context)!;
      const label = `${answer.key} for ${JSON.stringify(context)}`;
      assert.deepEqual(
        {
          value: local.value ?? null,
          variant: local.variant,
          reason: local.reason,
          ruleId: local.ruleId,
          errorCode: local.errorCode,
          fallbackClass: local.fallbackClass,
        },
        {
          value: answer.value,
          variant: answer.variant,
          reason: answer.reason,
          ruleId: answer.ruleId,
          errorCode: answer.errorCode,
          fallbackClass: answer.fallbackClass,
        },
        label,
      );
      const mapped = toOpenFeature(local, metadata.get(answer.key), 'ofrep');
      const item = ofrep.get(answer.key);
      if (mapped.reason === 'ERROR') assert.equal(item.errorCode, mapped.errorCode, label);
      else
        assert.deepEqual(
          { value: item.value, reason: item.reason, variant: item.variant },
          { value: mapped.value, reason: mapped.reason, variant: mapped.variant },
          label,
        );
      compared++;
    }
  }
  t.diagnostic(`${compared} evaluations compared`);
  assert.equal(compared, 150 * flags.length + 150 * 5);
});

test('the client projection for a pub_ key, a change through the real stream, and stored exposures', async (t) => {
  const ensign = await startEnsign(t);
  const client = createClient({ url: ensign.address, key: ensign.pub, store: null, events: { flushIntervalMs: 50 } });
  t.after(() => client.close());
  await client.ready();
  assert.equal(client.document()!.audience, 'client');
  assert.equal(client.detail('ops-only', {}, true).errorCode, 'FLAG_NOT_FOUND', 'hidden flags are not delivered');
  const changed: string[][] = [];
  client.on('changed', ({ keys }) => changed.push(keys));
  const started = Date.now();
  await ensign.setFlag({ key: 'dark-mode', value: true });
  await waitFor(() => changed.length > 0, 3000);
  t.diagnostic(`change seen through the stream after ${Date.now() - started} ms`);
  assert.deepEqual(changed[0], ['dark-mode']);
  assert.equal(client.boolean('dark-mode', {}, false), true);
  client.track('signup', { targetingKey: 'visitor-1' }, 1);
  await client.flush();
  assert.deepEqual(
    { delivered: client.eventStats().delivered, rejected: client.eventStats().rejected },
    { delivered: 1, rejected: 0 },
  );
});

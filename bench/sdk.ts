// `npm run bench:sdk`: local evaluation by @ensign/sdk against its peers in one run, same flags
// (bench/sdk-flags.ts: 200 flags with rules, rollouts, splits and five running experiments) and the
// same 100 contexts; then the SDK's time to ready (from the network, from a persisted copy with the
// server down) and change-to-`changed` through the stream, against a started Ensign server.
//
// Evaluation is timed per batch (one context × 200 flags): ns per evaluation, p50 and p99 over
// batches, and evaluations per second overall. The implementations are measured in alternating
// rounds, so a change in the machine's load affects them alike. Peers get their contexts already
// converted to their own shape (the conversion is not timed); Ensign takes the context as given.
//
//   npm run bench:sdk                      # 3 rounds × 1 s per implementation
//   BENCH_SECONDS=3 npm run bench:sdk      # longer rounds
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { FlagdCore } from '@openfeature/flagd-core';
import { FlagdProvider } from '@openfeature/flagd-provider';
import {
  OpenFeature,
  type Client as OpenFeatureClient,
  type EvaluationContext as OpenFeatureContext,
  type JsonValue,
} from '@openfeature/server-sdk';
import { GrowthBookClient } from '@growthbook/growthbook';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { createClient, type CoreDocument, type EnsignClient, type EvaluationContext } from '@ensign/sdk';
import { fileStore } from '@ensign/sdk/file-store';
import { EnsignServerProvider } from '@ensign/openfeature-server';
import {
  benchContexts,
  benchFlags,
  checkPeer,
  flagdConfiguration,
  growthbookAttributes,
  growthbookFeatures,
  unleashContext,
  unleashFeatures,
  unleashValue,
  type BenchFlag,
} from './sdk-flags.js';
import { startBenchServer, type BenchServer } from './sdk-server.js';

const ROUNDS = 3;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
const CONTEXTS = 100;
const READY_RUNS = 20;
const CHANGE_RUNS = 20;

type Evaluate = (flag: number, context: number) => unknown;
type EvaluateAsync = (flag: number, context: number) => Promise<unknown>;

interface Implementation {
  name: string;
  sync?: Evaluate;
  async?: EvaluateAsync;
}

interface Samples {
  nsPerEvaluation: number[];
  evaluations: number;
  seconds: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const ms = (ns: bigint) => Number(ns) / 1e6;
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

let sink = 0;

/** Batches (one context × every flag) for about `seconds`; ns per evaluation of each batch. */
async function measure(
  impl: Implementation,
  flagCount: number,
  contextCount: number,
  seconds: number,
  into: Samples,
): Promise<void> {
  const budget = BigInt(Math.round(seconds * 1e9));
  const started = process.hrtime.bigint();
  let c = 0;
  while (process.hrtime.bigint() - started < budget) {
    const t0 = process.hrtime.bigint();
    if (impl.sync) {
      const evaluate = impl.sync;
      for (let f = 0; f < flagCount; f++) if (evaluate(f, c) !== undefined) sink++;
    } else {
      const evaluate = impl.async!;
      for (let f = 0; f < flagCount; f++) if ((await evaluate(f, c)) !== undefined) sink++;
    }
    const t1 = process.hrtime.bigint();
    into.nsPerEvaluation.push(Number(t1 - t0) / flagCount);
    into.evaluations += flagCount;
    c = (c + 1) % contextCount;
  }
  into.seconds += Number(process.hrtime.bigint() - started) / 1e9;
}

function summary(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

/** A fetch for the evaluation benchmark's clients: the document is unchanged (304), every event accepted. */
const quietFetch: typeof fetch = async (input, init) => {
  if (String(input).endsWith('/api/v1/events/batch')) {
    const { events } = JSON.parse(String(init?.body)) as { events: unknown[] };
    return new Response(JSON.stringify({ results: events.map((_, index) => ({ index, status: 'accepted' })) }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }
  return new Response(null, { status: 304 });
};

function typedEnsign(client: EnsignClient, flag: BenchFlag): (context: EvaluationContext) => unknown {
  const key = flag.key;
  if (flag.type === 'bool') return (c) => client.boolean(key, c, false);
  if (flag.type === 'string') return (c) => client.string(key, c, '');
  if (flag.type === 'number') return (c) => client.number(key, c, 0);
  return (c) => client.json(key, c, null);
}

function typedOpenFeature(
  client: OpenFeatureClient,
  flag: BenchFlag,
): (context: OpenFeatureContext) => Promise<unknown> {
  const key = flag.key;
  if (flag.type === 'bool') return (c) => client.getBooleanValue(key, false, c);
  if (flag.type === 'string') return (c) => client.getStringValue(key, '', c);
  if (flag.type === 'number') return (c) => client.getNumberValue(key, 0, c);
  return (c) => client.getObjectValue(key, {} as JsonValue, c);
}

async function readiness(server: BenchServer, document: string) {
  // Wall time, and the process's CPU time over the same span (the server's included when it
  // answers): on a machine shared with other work the CPU time moves much less than the wall time.
  const cpu: Record<string, number[]> = {};
  const timings = async (runs: number, once: () => Promise<number>, name?: string) => {
    const out: number[] = [];
    for (let i = 0; i < runs; i++) {
      const before = process.cpuUsage();
      out.push(await once());
      const used = process.cpuUsage(before);
      if (name) (cpu[name] ??= []).push((used.user + used.system) / 1000);
    }
    if (name) cpu[name]!.sort((a, b) => a - b);
    return out.sort((a, b) => a - b);
  };
  const readyOnce = (key: string, store: ReturnType<typeof fileStore> | null, expect: string) => async () => {
    const t0 = process.hrtime.bigint();
    const client = createClient({ url: server.address, key, store, events: false, stream: false });
    const source = await client.ready();
    const elapsed = ms(process.hrtime.bigint() - t0);
    await client.close();
    if (source !== expect) throw new Error(`ready from ${source}, expected ${expect}`);
    return elapsed;
  };
  const networkSdk = await timings(READY_RUNS, readyOnce(server.sdk, null, 'network'), 'networkSdk');
  const networkPub = await timings(READY_RUNS, readyOnce(server.pub, null, 'network'), 'networkPub');

  // Change to `changed`: a flag written through the API, seen by a client following the stream.
  const follower = createClient({ url: server.address, key: server.sdk, store: null, events: false });
  await follower.ready();
  await new Promise((r) => setTimeout(r, 200)); // the stream is open
  const changes = await timings(CHANGE_RUNS, async () => {
    const seen = new Promise<bigint>((resolve) => {
      const off = follower.on('changed', () => {
        off();
        resolve(process.hrtime.bigint());
      });
    });
    const t0 = process.hrtime.bigint();
    await server.setValue('flag-001', `changed-${t0}`);
    return ms((await seen) - t0);
  });
  await follower.close();

  // Persisted: a copy written by one client, served to the next with the server down.
  const dir = mkdtempSync(join(tmpdir(), 'ensign-bench-store-'));
  writeFileSync(join(dir, 'unused'), '');
  const writer = createClient({
    url: server.address,
    key: server.sdk,
    store: fileStore(dir),
    events: false,
    stream: false,
  });
  await writer.ready();
  await writer.close();
  await server.close();
  const persisted = await timings(READY_RUNS, readyOnce(server.sdk, fileStore(dir), 'persisted'), 'persisted');
  rmSync(dir, { recursive: true, force: true });
  return { networkSdk, networkPub, changes, persisted, cpu, documentBytes: document.length };
}

async function main() {
  const flags = benchFlags();
  const contexts = benchContexts(CONTEXTS);
  const load = loadavg()[0]!.toFixed(1);
  console.log(
    `bench:sdk: ${flags.length} flags, ${contexts.length} contexts, ${ROUNDS} rounds × ${SECONDS} s per implementation; load average ${load}`,
  );

  const server = await startBenchServer(flags);
  const response = await fetch(`${server.address}/api/v1/advanced-config`, {
    headers: { authorization: `Bearer ${server.sdk}` },
  });
  const documentText = await response.text();
  const document = JSON.parse(documentText) as CoreDocument;
  const running = (document.experiments ?? []).filter((e) => e.state === 'running').length;
  if (running !== 5) throw new Error(`expected 5 running experiments, the document has ${running}`);
  const ready = await readiness(server, documentText);

  // --- Ensign: the SDK directly, and through the OpenFeature server provider ---------------------
  const options = {
    url: server.address,
    key: server.sdk,
    bootstrap: document,
    store: null,
    stream: false,
    fetch: quietFetch,
    pollIntervalMs: 3_600_000,
  };
  const client = createClient(options);
  await client.ready();
  const ensignTyped = flags.map((f) => typedEnsign(client, f));
  OpenFeature.setLogger({
    error: () => undefined,
    warn: () => undefined,
    info: () => undefined,
    debug: () => undefined,
  });
  const provider = new EnsignServerProvider(options);
  await OpenFeature.setProviderAndWait('ensign', provider);
  const ensignOpenFeature = OpenFeature.getClient('ensign');
  const ensignOpenFeatureTyped = flags.map((f) => typedOpenFeature(ensignOpenFeature, f));

  // --- flagd: the core directly, and the provider in-process from an offline file ----------------
  const flagdDir = mkdtempSync(join(tmpdir(), 'ensign-bench-flagd-'));
  const flagdFile = join(flagdDir, 'flags.json');
  writeFileSync(flagdFile, flagdConfiguration(flags));
  const core = new FlagdCore();
  core.setConfigurations(flagdConfiguration(flags));
  const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
  const flagdTyped = flags.map((flag): ((c: OpenFeatureContext) => unknown) => {
    const key = flag.key;
    if (flag.type === 'bool') return (c) => core.resolveBooleanEvaluation(key, false, c, silent).value;
    if (flag.type === 'string') return (c) => core.resolveStringEvaluation(key, '', c, silent).value;
    if (flag.type === 'number') return (c) => core.resolveNumberEvaluation(key, 0, c, silent).value;
    return (c) => core.resolveObjectEvaluation(key, {} as JsonValue, c, silent).value;
  });
  await OpenFeature.setProviderAndWait(
    'flagd',
    new FlagdProvider({ resolverType: 'in-process', offlineFlagSourcePath: flagdFile }),
  );
  const flagdOpenFeature = OpenFeature.getClient('flagd');
  const flagdOpenFeatureTyped = flags.map((f) => typedOpenFeature(flagdOpenFeature, f));

  // --- Unleash: getVariant with the payload in the flag's type -----------------------------------
  const unleash = new Unleash({
    appName: 'bench',
    url: 'http://127.0.0.1:9/api/',
    refreshInterval: 0,
    disableMetrics: true,
    skipInstanceCountWarning: true,
    storageProvider: new InMemStorageProvider(),
    bootstrap: { data: unleashFeatures(flags) as never },
  });
  unleash.on(UnleashEvents.Error, () => undefined);
  await new Promise<void>((resolve) =>
    unleash.isSynchronized() ? resolve() : unleash.once(UnleashEvents.Ready, () => resolve()),
  );
  const unleashContexts = contexts.map(unleashContext);
  const unleashTyped = flags.map(
    (flag) => (c: ReturnType<typeof unleashContext>) =>
      unleashValue(flag.type, unleash.getVariant(flag.key, c).payload as never),
  );

  // --- GrowthBook: the multi-user client, an experiment tracked per assignment --------------------
  const growthbook = new GrowthBookClient({ trackingCallback: () => undefined });
  growthbook.initSync({ payload: { features: growthbookFeatures(flags) as never } });
  const growthbookContexts = contexts.map((c) => ({ attributes: growthbookAttributes(c) }));
  const growthbookTyped = flags.map(
    (flag) => (c: { attributes: Record<string, unknown> }) => growthbook.evalFeature(flag.key, c).value,
  );

  // Same decisions wherever no hashing is involved.
  const ensignOf = (flag: BenchFlag, context: EvaluationContext) => client.evaluate(flag.key, context)!;
  const index = new Map(flags.map((f, i) => [f.key, i]));
  const contextIndex = new Map(contexts.map((c, i) => [c, i]));
  const flagdProviderValues = new Map<string, unknown>();
  const ensignProviderValues = new Map<string, unknown>();
  for (let c = 0; c < contexts.length; c++) {
    for (let f = 0; f < flags.length; f++) {
      flagdProviderValues.set(`${f}/${c}`, await flagdOpenFeatureTyped[f]!(contexts[c] as OpenFeatureContext));
      ensignProviderValues.set(`${f}/${c}`, await ensignOpenFeatureTyped[f]!(contexts[c] as OpenFeatureContext));
    }
  }
  const at = (flag: BenchFlag, context: EvaluationContext) => `${index.get(flag.key)}/${contextIndex.get(context)}`;
  const checked = {
    'Ensign via OpenFeature': checkPeer('Ensign via OpenFeature', flags, contexts, ensignOf, (flag, c) =>
      ensignProviderValues.get(at(flag, c)),
    ),
    'flagd-core': checkPeer('flagd-core', flags, contexts, ensignOf, (flag, c) =>
      flagdTyped[index.get(flag.key)!]!(c as OpenFeatureContext),
    ),
    'flagd provider': checkPeer('flagd provider', flags, contexts, ensignOf, (flag, c) =>
      flagdProviderValues.get(at(flag, c)),
    ),
    'unleash-client': checkPeer('unleash-client', flags, contexts, ensignOf, (flag, c) =>
      unleashTyped[index.get(flag.key)!]!(unleashContext(c)),
    ),
    GrowthBook: checkPeer('GrowthBook', flags, contexts, ensignOf, (flag, c) =>
      growthbookTyped[index.get(flag.key)!]!({ attributes: growthbookAttributes(c) }),
    ),
  };
  console.log(
    `decisions compared with Ensign's (no hashing involved): ${Object.entries(checked)
      .map(([n, k]) => `${n} ${fmt(k)}`)
      .join(', ')}`,
  );

  const ofContexts = contexts as OpenFeatureContext[];
  const implementations: Implementation[] = [
    { name: '@ensign/sdk', sync: (f, c) => ensignTyped[f]!(contexts[c]!) },
    {
      name: '@ensign/openfeature-server (OpenFeature SDK)',
      async: (f, c) => ensignOpenFeatureTyped[f]!(ofContexts[c]!),
    },
    { name: '@openfeature/flagd-core', sync: (f, c) => flagdTyped[f]!(ofContexts[c]!) },
    {
      name: '@openfeature/flagd-provider in-process (OpenFeature SDK)',
      async: (f, c) => flagdOpenFeatureTyped[f]!(ofContexts[c]!),
    },
    { name: 'unleash-client getVariant', sync: (f, c) => unleashTyped[f]!(unleashContexts[c]!) },
    { name: '@growthbook/growthbook evalFeature', sync: (f, c) => growthbookTyped[f]!(growthbookContexts[c]!) },
  ];
  const samples = new Map<string, Samples>(
    implementations.map((i) => [i.name, { nsPerEvaluation: [], evaluations: 0, seconds: 0 }]),
  );
  for (const impl of implementations)
    await measure(impl, flags.length, contexts.length, 0.3, { nsPerEvaluation: [], evaluations: 0, seconds: 0 }); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const impl of implementations)
      await measure(impl, flags.length, contexts.length, SECONDS, samples.get(impl.name)!);
  }
  if (sink === 0) throw new Error('nothing was evaluated');

  const rows = implementations.map((impl) => {
    const s = samples.get(impl.name)!;
    return { name: impl.name, ...summary(s.nsPerEvaluation), perSecond: s.evaluations / s.seconds };
  });
  const ours = rows[0]!;
  console.log('\nLocal evaluation (ns per evaluation over batches of one context × 200 flags)');
  console.log('| Implementation | p50 ns | p99 ns | evaluations/s | @ensign/sdk faster at p50 |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${fmt(row.p50)} | ${fmt(row.p99)} | ${fmt(row.perSecond)} | ${row === ours ? '—' : `${fmt(row.p50 / ours.p50, 2)}×`} |`,
    );
  }
  const viaOpenFeature = rows[1]!;
  const flagdViaOpenFeature = rows[3]!;
  console.log(
    `\nThrough the OpenFeature server SDK, like for like: Ensign ${fmt(viaOpenFeature.p50)} ns, flagd ${fmt(flagdViaOpenFeature.p50)} ns at p50 (${fmt(flagdViaOpenFeature.p50 / viaOpenFeature.p50, 2)}×)`,
  );
  const slowest = Math.min(
    ...rows
      .slice(1)
      .filter((r) => r !== viaOpenFeature)
      .map((r) => r.p50 / ours.p50),
  );
  console.log(
    `Bar (issue 22): @ensign/sdk at least 2× faster than each peer at p50: ${slowest >= 2 ? 'met' : 'NOT met'} (smallest ratio ${fmt(slowest, 2)}×)`,
  );

  const line = (name: string, values: number[], bar: string, cpuMs?: number[]) =>
    console.log(
      `| ${name} | ${fmt(percentile(values, 0.5), 1)} | ${fmt(percentile(values, 0.95), 1)} | ${fmt(values[values.length - 1]!, 1)} | ${cpuMs ? fmt(percentile(cpuMs, 0.5), 1) : '—'} | ${bar} |`,
    );
  console.log(
    `\nReadiness and changes (${READY_RUNS} runs each; document ${fmt(ready.documentBytes)} bytes, server in this process on loopback)`,
  );
  console.log('| Measurement | p50 ms | p95 ms | max ms | CPU ms p50 | bar |');
  console.log('|---|---:|---:|---:|---:|---|');
  line('ready() from the network, sdk_ key (server document)', ready.networkSdk, '< 50 ms', ready.cpu.networkSdk);
  line('ready() from the network, pub_ key (client projection)', ready.networkPub, '< 50 ms', ready.cpu.networkPub);
  line('ready() from a persisted copy, server down', ready.persisted, '< 5 ms', ready.cpu.persisted);
  line('flag write → `changed` through the stream', ready.changes, 'p95 < 200 ms');

  await client.close();
  await OpenFeature.close();
  unleash.destroy();
  growthbook.destroy();
  rmSync(flagdDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

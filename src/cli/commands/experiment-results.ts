// Results of an experiment iteration (issue 12): the analysis of the pinned aggregate, recompute
// requests and aggregation runs.
//   ensign experiments results <id> [--iteration <itr_…> --revision <n>]
//   ensign experiments recompute <id> [--iteration … --revision …] [--prior-watermark <receivedAt>/<eventId>] [--wait]
//   ensign experiments run <id> <runId>
import type { Command } from 'commander';
import { action, type CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger } from '../input.js';
import { emit, printLine, printTable } from '../output.js';
import { scoped } from './definitions.js';
import { idempotencyKey } from './idempotency.js';

type Scope = { app: string; env: string };
type IterationOptions = Scope & { iteration?: string; revision?: string };
type Row = Record<string, any>;
const base = (id: string) => `/api/v1/experiments/${encodeURIComponent(id)}`;

/** The iteration named by the options, or the experiment's current one. */
async function iterationOf(ctx: CliContext, id: string, o: IterationOptions): Promise<{ iterationId: string; iterationRevision: number }> {
  if (o.iteration !== undefined && o.revision !== undefined) return { iterationId: o.iteration, iterationRevision: parseInteger('--revision', o.revision, 1) };
  const res = await ctx.client.get<{ experiment: Row }>(base(id), { query: { appId: o.app, env: o.env } });
  const current = res.body.experiment.currentIteration as { id: string; revision: number } | null;
  if (!current) throw new UsageError('The experiment has no iteration yet: start it (ensign experiments transition … --to running).');
  return { iterationId: o.iteration ?? current.id, iterationRevision: o.revision === undefined ? current.revision : parseInteger('--revision', o.revision, 1) };
}

const fixed = (x: number | null | undefined, digits = 5) => (x === null || x === undefined ? '-' : x.toFixed(digits));

function printRun(run: Row): void {
  const w = run.watermark ? ` at watermark ${run.watermark.receivedAt}/${run.watermark.eventId}` : '';
  printLine(`${run.id}: ${run.state} (${run.cause})${w}`);
  for (const d of run.diagnostics as string[]) printLine(`  ${d}`);
  if (run.remediation) printLine(`  remediation: ${run.remediation}`);
}

const iterationOptions = (c: Command) => scoped(c)
  .option('--iteration <id>', 'the iteration (default: the current one)')
  .option('--revision <n>', 'its revision (default: the current one)');

export function registerExperimentResultsCommands(experiments: Command): void {
  iterationOptions(experiments.command('results <id>').description('descriptive-v1 results of an iteration'))
    .action(action(async (ctx, id: string, o: IterationOptions) => {
      const query = await iterationOf(ctx, id, o);
      const res = await ctx.client.get<Row>(`${base(id)}/results`, { query: { appId: o.app, env: o.env, ...query } });
      emit(ctx.json, res.body, () => {
        const r = res.body;
        printLine(`decision: ${r.analysisDecision}; SRM p ${fixed(r.health.srm.pValue)} (${r.health.srm.status}); multiple exposures ${r.health.multipleExposures.count}`);
        printLine(`aggregate ${r.aggregate.runId} pinned ${r.aggregate.pinnedAt}, lag ${r.freshness.lagSeconds} s`);
        printTable(['VARIANT', 'UNITS'], r.aggregate.variants.map((v: Row) => [v.key, v.units]), '');
        const rows = (label: string, list: Row[] | undefined) => (list ?? []).map((c) => [label, c.metricId, c.variant, fixed(c.relative?.effect), `[${fixed(c.relative?.ci[0])}, ${fixed(c.relative?.ci[1])}]`, fixed(c.relative?.pValue)]);
        printTable(['INFERENCE', 'METRIC', 'VARIANT', 'RELATIVE', 'CI', 'P'], [...rows('fixed', r.inference.fixedHorizon), ...rows('sequential', r.inference.sequential)], '');
        for (const g of r.health.guardrails as Row[]) printLine(`guardrail ${g.metricId} in ${g.variant}: ${g.status}`);
        for (const d of r.diagnostics as string[]) printLine(`note: ${d}`);
      });
    }));

  iterationOptions(experiments.command('recompute <id>').description('queue an aggregation run of an iteration'))
    .option('--prior-watermark <receivedAt/eventId>', 'refuse unless the pinned aggregate is still at this watermark')
    .option('--idempotency-key <key>', 'caller-stable key, 16..128 characters; repeat it to retry safely (default: random)')
    .option('--wait', 'wait until the run has finished')
    .action(action(async (ctx, id: string, o: IterationOptions & { priorWatermark?: string; idempotencyKey?: string; wait?: boolean }) => {
      const iteration = await iterationOf(ctx, id, o);
      let priorWatermark: { receivedAt: number; eventId: string } | undefined;
      if (o.priorWatermark !== undefined) {
        const slash = o.priorWatermark.indexOf('/');
        if (slash < 1) throw new UsageError('--prior-watermark takes <receivedAt>/<eventId>, as the results print it.');
        priorWatermark = { receivedAt: parseInteger('--prior-watermark', o.priorWatermark.slice(0, slash), 0), eventId: o.priorWatermark.slice(slash + 1) };
      }
      const body = {
        appId: o.app, env: o.env, ...iteration, analysisEngineVersion: 'descriptive-v1', idempotencyKey: idempotencyKey(o.idempotencyKey), confirm: true,
        ...(priorWatermark ? { priorWatermark } : {}),
      };
      const res = await ctx.client.post<{ run: Row; replayed: boolean }>(`${base(id)}/results/recompute`, body);
      let run = res.body.run;
      for (let waited = 0; o.wait && (run.state === 'queued' || run.state === 'running'); waited++) {
        if (waited >= 600) throw new UsageError(`Run ${run.id} is still ${run.state} after 10 minutes; follow it with ensign experiments run ${id} ${run.id}.`);
        await new Promise((r) => setTimeout(r, 1000));
        run = (await ctx.client.get<{ run: Row }>(`${base(id)}/results/runs/${encodeURIComponent(run.id)}`, { query: { appId: o.app, env: o.env } })).body.run;
      }
      emit(ctx.json, { run, replayed: res.body.replayed }, () => printRun(run));
    }));

  scoped(experiments.command('run <id> <runId>').description('one aggregation run: state, cause, diagnostics'))
    .action(action(async (ctx, id: string, runId: string, o: Scope) => {
      const res = await ctx.client.get<{ run: Row }>(`${base(id)}/results/runs/${encodeURIComponent(runId)}`, { query: { appId: o.app, env: o.env } });
      emit(ctx.json, res.body, () => printRun(res.body.run));
    }));
}

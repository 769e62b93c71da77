// Results of an experiment iteration (issue 12): the analysis of the pinned aggregate, recompute
// requests and aggregation runs.
//   ensign experiments results <id> [--iteration <itr_…> --revision <n>]
//   ensign experiments recompute <id> [--iteration … --revision …] [--prior-watermark <receivedAt>/<eventId>] [--wait]
//   ensign experiments run <id> <runId>
import type { Command } from 'commander';
import { ok, type ResponseBody } from '../api.js';
import { action, type CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger } from '../input.js';
import { emit, printJson, printLine, printTable, show } from '../output.js';
import { scoped } from './definitions.js';
import { idempotencyKey } from './idempotency.js';

type Scope = { app: string; env: string };
type IterationOptions = Scope & { iteration?: string; revision?: string };
type Row = Record<string, any>;
const base = (id: string) => `/api/v1/experiments/${encodeURIComponent(id)}`;

/** The iteration named by the options, or the experiment's current one. */
async function iterationOf(
  ctx: CliContext,
  id: string,
  o: IterationOptions,
): Promise<{ iterationId: string; iterationRevision: number }> {
  if (o.iteration !== undefined && o.revision !== undefined)
    return { iterationId: o.iteration, iterationRevision: parseInteger('--revision', o.revision, 1) };
  const res = await ctx.client.get<{ experiment: Row }>(base(id), { query: { appId: o.app, env: o.env } });
  const current = res.body.experiment.currentIteration as { id: string; revision: number } | null;
  if (!current)
    throw new UsageError(
      'The experiment has no iteration yet: start it (ensign experiments transition … --to running).',
    );
  return {
    iterationId: o.iteration ?? current.id,
    iterationRevision: o.revision === undefined ? current.revision : parseInteger('--revision', o.revision, 1),
  };
}

type Results = ResponseBody<'getExperimentResults'>;
type Metric = ResponseBody<'listMetrics'>['metrics'][number];

/** A p-value: four decimals, and scientific notation below 0.001 (5.5e-8, never 0.0000). */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined) return '-';
  if (p === 0) return '0';
  return p < 0.001 ? p.toExponential(1) : p.toFixed(4);
}

/** A plain number: up to four decimals, scientific notation when that would hide it or it is huge. */
export function formatNumber(x: number | null | undefined): string {
  if (x === null || x === undefined) return '-';
  if (x === 0) return '0';
  const size = Math.abs(x);
  return size < 0.001 || size >= 1e12 ? x.toExponential(2) : String(Number(x.toFixed(4)));
}

/** A fraction as a percentage (0.1234 → 12.34 %), signed for effects. */
export function formatPercent(x: number | null | undefined, signed = false): string {
  if (x === null || x === undefined) return '-';
  const percent = x * 100;
  const sign = signed && percent > 0 ? '+' : '';
  const size = Math.abs(percent);
  return `${sign}${percent !== 0 && (size < 0.01 || size >= 1e12) ? percent.toExponential(1) : percent.toFixed(2)} %`;
}

/** Metric names and kinds by id, from the environment's metrics (head revisions). */
async function metricsById(ctx: CliContext, o: Scope): Promise<Map<string, Metric>> {
  const { metrics } = await ok(
    ctx.client.api.GET('/api/v1/metrics', { params: { query: { appId: o.app, env: o.env } } }),
  );
  return new Map(metrics.map((m) => [m.id, m]));
}

/** The human form of a results document: decision and health, per-variant units and rates or means, the comparisons, guardrails. */
export function printResults(r: Results, metrics: Map<string, Metric>): void {
  // Names and keys people chose go into lines: show() keeps each on its line (control characters escaped).
  const name = (id: string) => show(metrics.get(id)?.name ?? id);
  printLine(
    `decision: ${r.analysisDecision}; SRM p ${formatP(r.health.srm.pValue)} (${r.health.srm.status}); multiple exposures ${r.health.multipleExposures.count}`,
  );
  printLine(`aggregate ${r.aggregate.runId} pinned ${r.aggregate.pinnedAt}, lag ${r.freshness.lagSeconds} s`);
  const metricIds = [...new Set(r.aggregate.variants.flatMap((v) => Object.keys(v.metrics)))];
  // A proportion's mean is its rate (converted units / units); other kinds show their mean per unit.
  const perUnit = (id: string, stat: { mean: number } | undefined) =>
    stat === undefined
      ? '-'
      : metrics.get(id)?.kind === 'proportion'
        ? formatPercent(stat.mean)
        : formatNumber(stat.mean);
  printTable(
    [
      'VARIANT',
      'UNITS',
      ...metricIds.map((id) => `${name(id)} (${metrics.get(id)?.kind === 'proportion' ? 'rate' : 'mean'})`),
    ],
    r.aggregate.variants.map((v) => [v.key, v.units, ...metricIds.map((id) => perUnit(id, v.metrics[id]))]),
    '',
  );
  const rows = (label: string, list: Results['inference']['fixedHorizon'] | undefined) =>
    (list ?? []).map((c) => [
      label,
      name(c.metricId),
      c.variant,
      formatPercent(c.relative?.effect, true),
      c.relative ? `[${formatPercent(c.relative.ci[0], true)}, ${formatPercent(c.relative.ci[1], true)}]` : '-',
      formatP(c.relative?.pValue),
    ]);
  printTable(
    ['INFERENCE', 'METRIC', 'VARIANT', 'RELATIVE', 'CI', 'P'],
    [...rows('fixed', r.inference.fixedHorizon), ...rows('sequential', r.inference.sequential)],
    '',
  );
  for (const g of r.health.guardrails) {
    const interval = g.ci ? `, interval [${formatPercent(g.ci[0], true)}, ${formatPercent(g.ci[1], true)}]` : '';
    printLine(
      `guardrail ${name(g.metricId)} in ${show(g.variant)}: ${g.status}${interval}, tolerated ${formatPercent(g.maxRelativeDegradation)}`,
    );
  }
  // Diagnostics name metrics by id: the names read better.
  const named = (text: string) => [...metrics.values()].reduce((t, m) => t.replaceAll(m.id, m.name), text);
  for (const d of r.diagnostics) printLine(`note: ${show(named(d))}`);
}

function printRun(run: Row): void {
  const w = run.watermark ? ` at watermark ${run.watermark.receivedAt}/${run.watermark.eventId}` : '';
  printLine(`${run.id}: ${run.state} (${run.cause})${w}`);
  for (const d of run.diagnostics as string[]) printLine(`  ${d}`);
  if (run.remediation) printLine(`  remediation: ${run.remediation}`);
}

const iterationOptions = (c: Command) =>
  scoped(c)
    .option('--iteration <id>', 'the iteration (default: the current one)')
    .option('--revision <n>', 'its revision (default: the current one)');

export function registerExperimentResultsCommands(experiments: Command): void {
  iterationOptions(experiments.command('results <id>').description('descriptive-v1 results of an iteration')).action(
    action(async (ctx, id: string, o: IterationOptions) => {
      const query = await iterationOf(ctx, id, o);
      const results = await ok(
        ctx.client.api.GET('/api/v1/experiments/{id}/results', {
          params: { path: { id }, query: { appId: o.app, env: o.env, ...query } },
        }),
      );
      if (ctx.json) printJson(results);
      else printResults(results, await metricsById(ctx, o));
    }),
  );

  iterationOptions(experiments.command('recompute <id>').description('queue an aggregation run of an iteration'))
    .option('--prior-watermark <receivedAt/eventId>', 'refuse unless the pinned aggregate is still at this watermark')
    .option(
      '--idempotency-key <key>',
      'caller-stable key, 16..128 characters; repeat it to retry safely (default: random)',
    )
    .option('--wait', 'wait until the run has finished')
    .action(
      action(
        async (
          ctx,
          id: string,
          o: IterationOptions & { priorWatermark?: string; idempotencyKey?: string; wait?: boolean },
        ) => {
          const iteration = await iterationOf(ctx, id, o);
          let priorWatermark: { receivedAt: number; eventId: string } | undefined;
          if (o.priorWatermark !== undefined) {
            const slash = o.priorWatermark.indexOf('/');
            if (slash < 1)
              throw new UsageError('--prior-watermark takes <receivedAt>/<eventId>, as the results print it.');
            priorWatermark = {
              receivedAt: parseInteger('--prior-watermark', o.priorWatermark.slice(0, slash), 0),
              eventId: o.priorWatermark.slice(slash + 1),
            };
          }
          const body = {
            appId: o.app,
            env: o.env,
            ...iteration,
            analysisEngineVersion: 'descriptive-v1',
            idempotencyKey: idempotencyKey(o.idempotencyKey),
            confirm: true,
            ...(priorWatermark ? { priorWatermark } : {}),
          };
          const res = await ctx.client.post<{ run: Row; replayed: boolean }>(`${base(id)}/results/recompute`, body);
          let run = res.body.run;
          for (let waited = 0; o.wait && (run.state === 'queued' || run.state === 'running'); waited++) {
            if (waited >= 600)
              throw new UsageError(
                `Run ${run.id} is still ${run.state} after 10 minutes; follow it with ensign experiments run ${id} ${run.id}.`,
              );
            await new Promise((r) => setTimeout(r, 1000));
            run = (
              await ctx.client.get<{ run: Row }>(`${base(id)}/results/runs/${encodeURIComponent(run.id)}`, {
                query: { appId: o.app, env: o.env },
              })
            ).body.run;
          }
          emit(ctx.json, { run, replayed: res.body.replayed }, () => printRun(run));
        },
      ),
    );

  scoped(experiments.command('run <id> <runId>').description('one aggregation run: state, cause, diagnostics')).action(
    action(async (ctx, id: string, runId: string, o: Scope) => {
      const res = await ctx.client.get<{ run: Row }>(`${base(id)}/results/runs/${encodeURIComponent(runId)}`, {
        query: { appId: o.app, env: o.env },
      });
      emit(ctx.json, res.body, () => printRun(res.body.run));
    }),
  );
}

// Planning an experiment (issue 12): baselines of the primary metric and power analysis.
//   ensign experiments baselines list|capture <id> …
//   ensign experiments power --mde <x> --units-per-day <n> (--mean <m> [--variance <v>] | --baseline <bsl_…>)
import type { Command } from 'commander';
import { action } from '../context.js';
import { parseInteger } from '../input.js';
import { emit, printLine, printTable } from '../output.js';
import { given, parseNumber, scoped } from './definitions.js';
import { idempotencyKey } from './idempotency.js';

type Scope = { app: string; env: string };
type Row = Record<string, unknown>;
const baselinesPath = (id: string) => `/api/v1/experiments/${encodeURIComponent(id)}/baselines`;
const optionalNumber = (name: string, text: string | undefined) =>
  text === undefined ? undefined : parseNumber(name, text);

export function registerExperimentPlanningCommands(experiments: Command): void {
  const baselines = experiments.command('baselines').description("baselines of an experiment's primary metric");
  scoped(baselines.command('list <id>').description('list the baselines, newest first')).action(
    action(async (ctx, id: string, o: Scope) => {
      const res = await ctx.client.get<{ baselines: Row[] }>(baselinesPath(id), {
        query: { appId: o.app, env: o.env },
      });
      emit(ctx.json, res.body, () =>
        printTable(
          ['ID', 'VERSION', 'SOURCE', 'UNITS', 'MEAN', 'VARIANCE', 'FROM', 'TO', 'CAPTURED'],
          res.body.baselines.map((b) => {
            const w = b.window as { from: string; to: string };
            return [b.id, b.version, b.source, b.units, b.mean, b.variance, w.from, w.to, b.capturedAt] as string[];
          }),
          'No baselines.',
        ),
      );
    }),
  );
  scoped(baselines.command('capture <id>').description('capture a baseline from telemetry (default) or manual values'))
    .requiredOption('--metric <metricId>', "the experiment's primary metric")
    .requiredOption('--revision <n>', 'its pinned revision')
    .requiredOption('--from <time>', 'window start (RFC 3339)')
    .requiredOption('--to <time>', 'window end (RFC 3339)')
    .option('--units <n>', 'manual: units')
    .option('--mean <x>', 'manual: mean')
    .option('--variance <x>', 'manual: per-unit variance')
    .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)')
    .action(
      action(
        async (
          ctx,
          id: string,
          o: Scope & {
            metric: string;
            revision: string;
            from: string;
            to: string;
            units?: string;
            mean?: string;
            variance?: string;
            idempotencyKey?: string;
          },
        ) => {
          const manual = o.units !== undefined || o.mean !== undefined || o.variance !== undefined;
          const body = given({
            appId: o.app,
            env: o.env,
            metricId: o.metric,
            metricRevision: parseInteger('--revision', o.revision, 1),
            window: { from: o.from, to: o.to },
            source: manual ? 'manual' : 'telemetry',
            values: manual
              ? {
                  units: parseInteger('--units', o.units ?? '', 0),
                  mean: parseNumber('--mean', o.mean ?? ''),
                  variance: parseNumber('--variance', o.variance ?? ''),
                }
              : undefined,
          });
          const res = await ctx.client.post<{ baseline: Row }>(baselinesPath(id), body, {
            headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) },
          });
          emit(ctx.json, res.body, () => {
            const b = res.body.baseline;
            printLine(
              `${b.id} version ${b.version} (${b.source}): ${b.units} units, mean ${b.mean}, variance ${b.variance}`,
            );
          });
        },
      ),
    );

  scoped(
    experiments
      .command('power')
      .description('units and days to detect a relative effect; power and MDE at planned units'),
  )
    .requiredOption('--mde <x>', 'relative minimum detectable effect (0.05 = 5 %)')
    .requiredOption('--units-per-day <n>', 'units per day, all variants together')
    .option('--experiment <id>', 'default variants, alpha and sequential settings from this experiment')
    .option('--baseline <id>', 'a stored baseline (bsl_…)')
    .option('--kind <kind>', 'inline metric kind: count|mean|proportion|ratio', 'mean')
    .option('--mean <x>', 'inline baseline mean')
    .option('--variance <x>', 'inline per-unit variance')
    .option('--alpha <x>', "significance level (default 0.05 or the experiment's)")
    .option('--power <x>', 'target power (default 0.8)')
    .option('--variants <n>', 'variants including control, 2..10')
    .option('--planned-units <n>', 'units planned, all variants together')
    .option('--sequential', 'plan for sequential analysis')
    .action(
      action(async (ctx, o: Scope & Record<string, string | boolean | undefined>) => {
        const str = (k: string) => o[k] as string | undefined;
        const inline = str('mean') !== undefined || str('variance') !== undefined;
        const body = given({
          appId: o.app,
          env: o.env,
          experimentId: str('experiment'),
          baselineId: str('baseline'),
          // A proportion's variance is p(1 − p) of its mean: --variance may be left out for one.
          metric: inline
            ? {
                kind: str('kind'),
                mean: parseNumber('--mean', str('mean') ?? ''),
                variance: str('variance') === undefined ? undefined : parseNumber('--variance', str('variance')!),
              }
            : undefined,
          mde: parseNumber('--mde', str('mde')!),
          unitsPerDay: parseNumber('--units-per-day', str('unitsPerDay')!),
          alpha: optionalNumber('--alpha', str('alpha')),
          power: optionalNumber('--power', str('power')),
          variants: str('variants') === undefined ? undefined : parseInteger('--variants', str('variants')!, 2),
          plannedUnits: optionalNumber('--planned-units', str('plannedUnits')),
          sequential: o.sequential === true ? true : undefined,
        });
        const res = await ctx.client.post<Row>('/api/v1/experiments/power-analysis', body);
        emit(ctx.json, res.body, () => {
          const r = res.body as {
            readiness: string;
            reasons: string[];
            requiredUnits: { perVariant: number; total: number } | null;
            durationDays: number | null;
            atPlannedUnits?: { power: number; mde: number | null };
            sensitivity: Row[];
          };
          printLine(`readiness: ${r.readiness}${r.reasons.length ? ` (${r.reasons.join('; ')})` : ''}`);
          if (r.requiredUnits)
            printLine(
              `required units: ${r.requiredUnits.perVariant} per variant, ${r.requiredUnits.total} in total, ${r.durationDays} days`,
            );
          if (r.atPlannedUnits)
            printLine(
              `at planned units: power ${r.atPlannedUnits.power.toFixed(5)}, MDE ${r.atPlannedUnits.mde === null ? 'none' : r.atPlannedUnits.mde.toFixed(5)}`,
            );
          if (r.sensitivity.length)
            printTable(
              ['MDE', 'UNITS', 'DAYS'],
              r.sensitivity.map((s) => [s.mde, s.requiredUnits, s.durationDays] as string[]),
              '',
            );
        });
      }),
    );
}

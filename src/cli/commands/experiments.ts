// experiments: definitions, lifecycle, ramps and iterations (issue 11).
//   ensign experiments list|show|create|update|start|pause|resume|complete|archive|ramp|iterate
// Changes are compare-and-swap on the experiment's revision: --revision, or the current one read
// just before (the answer then says which revision was changed).
import type { Command } from 'commander';
import { action, type CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger, parseJsonOption } from '../input.js';
import { emit, printLine, printTable } from '../output.js';
import { create, given, parseNumber, printRecord, scoped } from './definitions.js';
import { registerExperimentPlanningCommands } from './experiment-planning.js';
import { registerExperimentResultsCommands } from './experiment-results.js';
import { idempotencyKey } from './idempotency.js';

type Scope = { app: string; env: string };
type Row = Record<string, unknown>;
type ChangeOptions = Scope & { revision?: string; idempotencyKey?: string };

const PATH = '/api/v1/experiments';
const at = (id: string, action = '') => `${PATH}/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;

/** "met_…:2" → { metricId, revision }. */
function metricRef(text: string) {
  const match = /^([^:]+):(\d+)$/.exec(text);
  if (!match) throw new UsageError(`--primary-metric must be <metricId>:<revision> (got ${text})`);
  return { metricId: match[1], revision: Number(match[2]) };
}

async function revisionOf(ctx: CliContext, id: string, o: ChangeOptions): Promise<number> {
  if (o.revision !== undefined) return parseInteger('--revision', o.revision, 1);
  const res = await ctx.client.get<{ experiment: { revision: number } }>(at(id), {
    query: { appId: o.app, env: o.env },
  });
  return res.body.experiment.revision;
}

async function change(ctx: CliContext, id: string, path: string, o: ChangeOptions, fields: Row) {
  const body = { appId: o.app, env: o.env, revision: await revisionOf(ctx, id, o), ...fields };
  const res = await ctx.client.post<{ experiment: Row; version: number; changeId: string | null }>(path, body, {
    headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) },
  });
  emit(ctx.json, res.body, () => {
    const e = res.body.experiment;
    const iteration = e.currentIteration as Row | null;
    printLine(
      `${e.key} (${e.id}) is ${e.state} at revision ${e.revision}${iteration ? `; iteration ${iteration.number} revision ${iteration.revision}, allocation ${iteration.allocation} %` : ''}.`,
    );
    printLine(
      res.body.changeId
        ? `config version ${res.body.version} (${res.body.changeId})`
        : `config version ${res.body.version} (what is served did not change)`,
    );
  });
}

const changeCommand = (group: Command, name: string, description: string) =>
  scoped(group.command(`${name} <id>`).description(description))
    .option('--revision <n>', "the experiment's current revision (default: read it first)")
    .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)');

export function registerExperimentsCommands(program: Command): void {
  const experiments = program
    .command('experiments')
    .description('experiments: definitions, lifecycle, ramps and iterations');

  scoped(experiments.command('list').description('list the experiments of an environment')).action(
    action(async (ctx, o: Scope) => {
      const res = await ctx.client.get<{ experiments: Row[] }>(PATH, { query: { appId: o.app, env: o.env } });
      emit(ctx.json, res.body, () =>
        printTable(
          ['ID', 'KEY', 'STATE', 'REV', 'FLAG', 'ALLOCATION', 'ITERATION', 'NAME'],
          res.body.experiments.map((e) => {
            const iteration = e.currentIteration as Row | null;
            return [
              e.id,
              e.key,
              e.state,
              e.revision,
              e.flagKey,
              e.allocation,
              iteration ? `${iteration.number}.${iteration.revision}` : '',
              e.name,
            ] as string[];
          }),
          'No experiments.',
        ),
      );
    }),
  );

  scoped(experiments.command('show <id>').description('show a definition and its current iteration')).action(
    action(async (ctx, id: string, o: Scope) => {
      printRecord(ctx, (await ctx.client.get<Row>(at(id), { query: { appId: o.app, env: o.env } })).body, 'experiment');
    }),
  );

  scoped(experiments.command('create').description('create a draft experiment on a flag'))
    .requiredOption('--key <key>', 'unique per environment')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--flag <flagKey>', 'the flag it runs on')
    .requiredOption(
      '--variants <json>',
      'e.g. \'[{"key":"control","value":false,"weight":50},{"key":"treatment","value":true,"weight":50}]\'',
    )
    .requiredOption('--allocation <percent>', 'percent of eligible traffic, 0 to 100')
    .requiredOption('--primary-metric <metricId:revision>', 'the pinned primary metric revision')
    .option('--hypothesis <text>', 'what the experiment should show')
    .option('--layer <layerId>', 'reserve allocation × 100 buckets of this layer')
    .option('--holdout <holdoutId>', 'never assign subjects of this holdout')
    .option('--targeting <json>', 'conditions as in flag rules, all must hold')
    .option('--analysis <json>', '{ alpha, sequential, sequentialTuning, cuped, minimumUnitsPerVariant }')
    .option('--secondary-metrics <json>', '[{ "metricId", "revision" }]')
    .option('--guardrail-metrics <json>', '[{ "metricId", "revision", "maxRelativeDegradation" }]')
    .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)')
    .action(
      action(async (ctx, o: Scope & Record<string, string | undefined>) => {
        const json = (name: string, value: string | undefined) =>
          value === undefined ? undefined : parseJsonOption(name, value);
        const body = given({
          appId: o.app,
          env: o.env,
          key: o.key,
          name: o.name,
          flagKey: o.flag,
          variants: json('--variants', o.variants),
          allocation: parseNumber('--allocation', o.allocation!),
          primaryMetric: metricRef(o.primaryMetric!),
          hypothesis: o.hypothesis,
          layerId: o.layer,
          holdoutId: o.holdout,
          targeting: json('--targeting', o.targeting),
          analysis: json('--analysis', o.analysis),
          secondaryMetrics: json('--secondary-metrics', o.secondaryMetrics),
          guardrailMetrics: json('--guardrail-metrics', o.guardrailMetrics),
        });
        await create(ctx, PATH, body, o.idempotencyKey, 'experiment');
      }),
    );

  changeCommand(experiments, 'update', 'change fields of an experiment (served fields only while draft)')
    .requiredOption('--set <json>', 'the fields to change, e.g. \'{"name":"Checkout v2","allocation":20}\'')
    .action(
      action(async (ctx, id: string, o: ChangeOptions & { set: string }) => {
        const fields = parseJsonOption('--set', o.set) as Row;
        const body = { ...fields, appId: o.app, env: o.env, revision: await revisionOf(ctx, id, o) };
        const res = await ctx.client.patch<Row>(at(id), body, {
          headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) },
        });
        printRecord(ctx, res.body, 'experiment');
      }),
    );

  const moves: Array<[string, string, string]> = [
    ['start', 'running', 'start a draft (iteration 1)'],
    ['pause', 'paused', "pause: nobody is assigned, the flag's ordinary value is served"],
    ['resume', 'running', 'resume a paused experiment with the same assignments'],
    ['archive', 'archived', 'archive a completed experiment (frees its layer range)'],
  ];
  for (const [name, to, description] of moves) {
    changeCommand(experiments, name, description)
      .option('--reason <text>', 'why, for the record')
      .action(
        action(async (ctx, id: string, o: ChangeOptions & { reason?: string }) =>
          change(ctx, id, at(id, 'transition'), o, given({ to, reason: o.reason })),
        ),
      );
  }
  changeCommand(experiments, 'complete', "complete: assignment stops, the flag's ordinary value is served")
    .option('--winner <variant>', 'record the winning variant')
    .option('--reason <text>', 'why, for the record')
    .action(
      action(async (ctx, id: string, o: ChangeOptions & { winner?: string; reason?: string }) =>
        change(ctx, id, at(id, 'transition'), o, given({ to: 'completed', winner: o.winner, reason: o.reason })),
      ),
    );
  changeCommand(experiments, 'ramp', 'change the allocation; assigned subjects keep their variant')
    .requiredOption('--allocation <percent>', 'the new allocation, 0 to 100')
    .action(
      action(async (ctx, id: string, o: ChangeOptions & { allocation: string }) =>
        change(ctx, id, at(id, 'ramp'), o, { allocation: parseNumber('--allocation', o.allocation) }),
      ),
    );
  changeCommand(experiments, 'iterate', 'start a new iteration of a paused experiment with a new salt').action(
    action(async (ctx, id: string, o: ChangeOptions) => change(ctx, id, at(id, 'iterate'), o, {})),
  );
  registerExperimentPlanningCommands(experiments);
  registerExperimentResultsCommands(experiments);
}

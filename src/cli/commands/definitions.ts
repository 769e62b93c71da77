// metrics, layers and holdouts: the experimentation definitions of an environment (issue 11).
//   ensign metrics list|show|revisions|create|revise
//   ensign layers list|show|create|update
//   ensign holdouts list|show|create|update
import type { Command } from 'commander';
import { action, scopeOptions, type CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger } from '../input.js';
import { emit, printPairs, printTable, show } from '../output.js';
import { idempotencyKey } from './idempotency.js';

type Scope = { app: string; env: string };
type Row = Record<string, unknown>;

export const scoped = (command: Command) => scopeOptions(command);

export const parseNumber = (name: string, text: string): number => {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${name} must be a number (got ${text})`);
  return n;
};

/** Drops the options the user did not give, so a PATCH changes only what was asked. */
export const given = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));

/** Sends a create with an idempotency key (the user's, or a fresh one) and prints the record. */
export async function create(ctx: CliContext, path: string, body: Row, key: string | undefined, field: string) {
  const res = await ctx.client.post<Record<string, Row>>(path, body, {
    headers: { 'idempotency-key': idempotencyKey(key) },
  });
  printRecord(ctx, res.body, field);
}

export function printRecord(ctx: CliContext, body: Record<string, unknown>, field: string) {
  emit(ctx.json, body, () => {
    const record = (body[field] ?? body.preview) as Row;
    if (body.preview) printPairs([['dry run', 'nothing was stored']]);
    printPairs(
      Object.entries(record).map(([k, v]): [string, string] => [
        k,
        typeof v === 'object' && v !== null ? show(v) : String(v),
      ]),
    );
  });
}

function registerMetrics(program: Command) {
  const metrics = program.command('metrics').description('metrics of an environment and their immutable revisions');
  scoped(metrics.command('list').description('list metric heads')).action(
    action(async (ctx, o: Scope) => {
      const res = await ctx.client.get<{ metrics: Row[] }>('/api/v1/metrics', { query: { appId: o.app, env: o.env } });
      emit(ctx.json, res.body, () =>
        printTable(
          ['ID', 'KEY', 'REV', 'KIND', 'EVENT', 'DIRECTION', 'NAME'],
          res.body.metrics.map(
            (m) => [m.id, m.key, m.revision, m.kind, m.eventMetricKey, m.direction, m.name] as string[],
          ),
          'No metrics.',
        ),
      );
    }),
  );
  scoped(metrics.command('show <id>').description('show the head, or one revision'))
    .option('--revision <n>', 'exactly this revision')
    .action(
      action(async (ctx, id: string, o: Scope & { revision?: string }) => {
        const query = {
          appId: o.app,
          env: o.env,
          revision: o.revision === undefined ? undefined : parseInteger('--revision', o.revision, 1),
        };
        printRecord(
          ctx,
          (await ctx.client.get<Row>(`/api/v1/metrics/${encodeURIComponent(id)}`, { query })).body,
          'metric',
        );
      }),
    );
  scoped(metrics.command('revisions <id>').description('every revision, oldest first')).action(
    action(async (ctx, id: string, o: Scope) => {
      const res = await ctx.client.get<{ revisions: Row[] }>(`/api/v1/metrics/${encodeURIComponent(id)}/revisions`, {
        query: { appId: o.app, env: o.env },
      });
      emit(ctx.json, res.body, () =>
        printTable(
          ['REV', 'CREATED', 'NAME', 'KIND', 'EVENT', 'DIRECTION', 'WINSORIZE'],
          res.body.revisions.map(
            (m) =>
              [
                m.revision,
                m.createdAt,
                m.name,
                m.kind,
                m.eventMetricKey,
                m.direction,
                m.winsorizePercentile,
              ] as string[],
          ),
        ),
      );
    }),
  );
  const metricFields = (command: Command) =>
    command
      .option('--name <name>', 'display name')
      .option('--kind <kind>', 'proportion, mean, count or ratio')
      .option('--event-metric-key <key>', 'metricKey of the outcome events it reads')
      .option('--denominator-metric-key <key>', 'ratio metrics: metricKey of the denominator events')
      .option('--direction <direction>', 'increase or decrease')
      .option('--winsorize-percentile <p>', '90 to 100')
      .option('--description <text>', 'free text')
      .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)');
  type MetricOptions = Scope & {
    key?: string;
    name?: string;
    kind?: string;
    eventMetricKey?: string;
    denominatorMetricKey?: string;
    direction?: string;
    winsorizePercentile?: string;
    description?: string;
    idempotencyKey?: string;
    revision?: string;
  };
  const metricBody = (o: MetricOptions) =>
    given({
      appId: o.app,
      env: o.env,
      name: o.name,
      kind: o.kind,
      eventMetricKey: o.eventMetricKey,
      denominatorMetricKey: o.denominatorMetricKey,
      direction: o.direction,
      winsorizePercentile:
        o.winsorizePercentile === undefined ? undefined : parseNumber('--winsorize-percentile', o.winsorizePercentile),
      description: o.description,
    });
  metricFields(
    scoped(metrics.command('create').description('create a metric at revision 1')).requiredOption(
      '--key <key>',
      'unique per environment',
    ),
  ).action(
    action(async (ctx, o: MetricOptions) =>
      create(ctx, '/api/v1/metrics', { ...metricBody(o), key: o.key }, o.idempotencyKey, 'metric'),
    ),
  );
  metricFields(
    scoped(metrics.command('revise <id>').description('append a revision with the fields given')).requiredOption(
      '--revision <n>',
      'the current head revision (compare-and-swap)',
    ),
  ).action(
    action(async (ctx, id: string, o: MetricOptions) => {
      const body = { ...metricBody(o), revision: parseInteger('--revision', o.revision!, 1) };
      const res = await ctx.client.post<Row>(`/api/v1/metrics/${encodeURIComponent(id)}/revisions`, body, {
        headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) },
      });
      printRecord(ctx, res.body, 'metric');
    }),
  );
}

/** layers and holdouts: the same four commands over their own fields. */
function registerVersioned(
  program: Command,
  spec: {
    name: 'layers' | 'holdouts';
    field: 'layer' | 'holdout';
    description: string;
    columns: string[];
    cells: (r: Row) => unknown[];
  },
) {
  const group = program.command(spec.name).description(spec.description);
  const path = `/api/v1/${spec.name}`;
  const withPercentage = spec.name === 'holdouts';
  scoped(group.command('list').description(`list the ${spec.name} of an environment`)).action(
    action(async (ctx, o: Scope) => {
      const res = await ctx.client.get<Record<string, Row[]>>(path, { query: { appId: o.app, env: o.env } });
      emit(ctx.json, res.body, () =>
        printTable(
          spec.columns,
          res.body[spec.name]!.map((r) => spec.cells(r) as string[]),
          `No ${spec.name}.`,
        ),
      );
    }),
  );
  scoped(group.command('show <id>').description(`show one ${spec.field}`)).action(
    action(async (ctx, id: string, o: Scope) => {
      printRecord(
        ctx,
        (await ctx.client.get<Row>(`${path}/${encodeURIComponent(id)}`, { query: { appId: o.app, env: o.env } })).body,
        spec.field,
      );
    }),
  );
  type Options = Scope & {
    key?: string;
    name?: string;
    description?: string;
    percentage?: string;
    dryRun?: boolean;
    expectedVersion?: string;
    idempotencyKey?: string;
  };
  const fields = (o: Options) =>
    given({
      appId: o.app,
      env: o.env,
      name: o.name,
      description: o.description,
      dryRun: o.dryRun || undefined,
      percentage: o.percentage === undefined ? undefined : parseNumber('--percentage', o.percentage),
    });
  const common = (command: Command) => {
    command
      .option('--description <text>', 'free text')
      .option('--dry-run', 'validate and preview; store nothing')
      .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)');
    return withPercentage ? command.option('--percentage <p>', 'share of subjects held out, 0.01 to 50') : command;
  };
  common(
    scoped(group.command('create').description(`create a ${spec.field}`))
      .requiredOption('--key <key>', 'unique per environment')
      .requiredOption('--name <name>', 'display name'),
  ).action(
    action(async (ctx, o: Options) => create(ctx, path, { ...fields(o), key: o.key }, o.idempotencyKey, spec.field)),
  );
  common(
    scoped(group.command('update <id>').description(`change a ${spec.field} (compare-and-swap on its version)`))
      .requiredOption('--expected-version <n>', 'its current version')
      .option('--name <name>', 'display name'),
  ).action(
    action(async (ctx, id: string, o: Options) => {
      const res = await ctx.client.patch<Row>(
        `${path}/${encodeURIComponent(id)}`,
        { ...fields(o), version: parseInteger('--expected-version', o.expectedVersion!, 1) },
        { headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) } },
      );
      printRecord(ctx, res.body, spec.field);
    }),
  );
}

export function registerDefinitionCommands(program: Command): void {
  registerMetrics(program);
  registerVersioned(program, {
    name: 'layers',
    field: 'layer',
    description: 'layers of mutually exclusive experiments',
    columns: ['ID', 'KEY', 'VERSION', 'FREE BUCKETS', 'EXPERIMENTS', 'NAME'],
    cells: (l) => [
      l.id,
      l.key,
      l.version,
      l.freeBuckets,
      (l.allocations as Row[]).map((a) => `${a.experimentId}[${a.start},${a.end})`).join(' '),
      l.name,
    ],
  });
  registerVersioned(program, {
    name: 'holdouts',
    field: 'holdout',
    description: 'holdouts: shares of subjects kept out of the experiments naming them',
    columns: ['ID', 'KEY', 'VERSION', 'PERCENTAGE', 'NAME'],
    cells: (h) => [h.id, h.key, h.version, h.percentage, h.name],
  });
}

// Experiments and rollouts in protected environments (issue 20, decision 0029) from the command line:
//   ensign propose experiment-transition|experiment-ramp|experiment-iterate|experiment-patch <experimentId> …
//   ensign propose layer-patch <layerId> … | holdout-patch <holdoutId> …
//   ensign propose rollout-create <experimentId> … | rollout-transition|rollout-approve <experimentId> <planId> …
//   ensign experiments stop <experimentId> --reason … [--complete]
//   ensign rollouts stop <experimentId> <planId> --reason … [--cancel | --rollback]
// The propose commands read the target's current revision (or version, or plan version) and the
// environment's config version unless given; the 403 approval_required of a direct move names the
// command to run. `summarizeChange` gives `ensign proposals list` a line per proposal.
import { Option, type Command } from 'commander';
import { action, scopeOptions, type CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger, parseJsonOption } from '../input.js';
import { emit, printLine, printPairs, printTable, show } from '../output.js';
import { given, parseNumber } from './definitions.js';
import { idempotencyKey } from './idempotency.js';
import { currentVersion } from './rollback.js';
import { parseGuardrail, parseSteps } from './rollouts.js';

type Row = Record<string, any>;
type Scope = { app: string; env: string };
interface ProposeOptions extends Scope {
  baseVersion?: string;
  reason?: string;
  expiresIn?: string;
}

const experimentPath = (id: string) => `/api/v1/experiments/${encodeURIComponent(id)}`;
const planPath = (experimentId: string, planId: string) =>
  `${experimentPath(experimentId)}/rollouts/${encodeURIComponent(planId)}`;
const short = (digest: unknown) => (typeof digest === 'string' ? `${digest.slice(0, 12)}…` : '-');
const listOf = (value: unknown) =>
  Array.isArray(value) ? value.map((s: Row) => s.percentage ?? s).join('/') : show(value);

/** One line saying what a proposed change does, for `ensign proposals list`. */
export function summarizeChange(change: { kind: string; body: Record<string, unknown> }): string {
  const b = change.body as Row;
  switch (change.kind) {
    case 'flag.patch':
      return `flag ${b.key}: ${b.op ?? 'upsert'} ${Object.keys(b)
        .filter((k) => k !== 'key' && k !== 'op')
        .join(', ')}`.trimEnd();
    case 'flag.delete':
      return `flag ${b.key}: delete`;
    case 'bulk.apply':
      return `bulk: ${[...Object.keys(b.flags ?? {}), ...(b.advanced ? ['advanced'] : []), ...(b.privacy ? ['privacy'] : [])].join(', ')}`;
    case 'rollback.apply':
      return `rollback to version ${b.targetVersion}${b.scope ? ' (scoped)' : ''}`;
    case 'experiment.transition':
      return `experiment ${b.experimentId} r${b.revision} → ${b.to}${b.winner ? ` (winner ${b.winner})` : ''}`;
    case 'experiment.ramp':
      return `experiment ${b.experimentId} r${b.revision}: allocation → ${b.allocation} %`;
    case 'experiment.iterate':
      return `experiment ${b.experimentId} r${b.revision}: new iteration`;
    case 'experiment.patch':
      return `experiment ${b.experimentId} r${b.revision}: ${Object.keys(b)
        .filter((k) => k !== 'experimentId' && k !== 'revision')
        .join(', ')}`;
    case 'layer.patch':
      return `layer ${b.layerId} v${b.version}: ${Object.keys(b)
        .filter((k) => k !== 'layerId' && k !== 'version')
        .join(', ')}`;
    case 'holdout.patch':
      return `holdout ${b.holdoutId} v${b.version}: ${Object.keys(b)
        .filter((k) => k !== 'holdoutId' && k !== 'version')
        .map((k) => (k === 'percentage' ? `percentage → ${b.percentage} %` : k))
        .join(', ')}`;
    case 'rollout.create':
      return `rollout plan ${b.planId ?? '(new)'} of ${b.experimentId}: ${b.variant} in steps ${listOf(b.steps)} %`;
    case 'rollout.transition':
      return `rollout plan ${b.planId} v${b.planVersion} → ${b.to}${b.step !== undefined ? ` step ${b.step}` : ''}`;
    case 'rollout.approve':
      return `rollout plan ${b.planId} v${b.planVersion}: approve recommendation ${short(b.recommendationDigest)}`;
    default:
      return change.kind;
  }
}

/** The fields of a previewed resource that change, as rows. */
function resourceRows(resource: Row | undefined): (string | number)[][] {
  if (!resource) return [];
  const before = (resource.before ?? {}) as Row;
  const after = (resource.after ?? {}) as Row;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => [
      `${resource.type} ${resource.id}`,
      k,
      resource.before === null ? '' : show(before[k]),
      show(after[k]),
    ]);
}

function printProposal(p: Row): void {
  printPairs([
    ['proposal', p.id],
    ['env', p.env],
    ['change', summarizeChange(p.change)],
    ['base version', p.baseVersion],
    ['result version', p.preview.resultVersion],
    ['approvals needed', p.requiredApprovals],
    ['reason', p.reason],
    ['expires', p.expiresAt],
    ['digest', p.digest],
  ]);
  printTable(
    ['RESOURCE', 'FIELD', 'BEFORE', 'AFTER'],
    resourceRows(p.preview.resource),
    'The resource does not change.',
  );
  printTable(
    ['OP', 'RESOURCE', 'KEY', 'PATH', 'BEFORE', 'AFTER'],
    (p.preview.changes as Row[]).map((c) => [
      c.op,
      c.resourceType,
      c.key,
      c.path,
      'before' in c ? show(c.before) : '',
      'after' in c ? show(c.after) : '',
    ]),
    'What is served does not change.',
  );
}

async function propose(ctx: CliContext, o: ProposeOptions, kind: string, body: Record<string, unknown>): Promise<void> {
  const baseVersion =
    o.baseVersion !== undefined
      ? parseInteger('--base-version', o.baseVersion)
      : await currentVersion(ctx, o.app, o.env);
  const res = await ctx.client.post<{ proposal: Row }>('/api/v1/authority/propose', {
    appId: o.app,
    env: o.env,
    baseVersion,
    change: { kind, body },
    ...(o.reason ? { reason: o.reason } : {}),
    ...(o.expiresIn !== undefined ? { expiresInSeconds: parseInteger('--expires-in', o.expiresIn, 300) } : {}),
  });
  const p = res.body.proposal;
  emit(ctx.json, res.body, () => {
    printProposal(p);
    printLine(
      `\nask another owner or editor: ensign approve ${p.id} --app ${o.app} --env ${o.env} --digest ${p.digest}`,
    );
    printLine(`then: ensign execute ${p.id} --app ${o.app} --env ${o.env}`);
  });
}

const proposing = (command: Command) =>
  scopeOptions(command)
    .option('--base-version <n>', 'the config version the change is reviewed against (default: the current one)')
    .option('--reason <text>', "why (at most 1000 characters); recorded as the move's reason when it takes one")
    .option('--expires-in <seconds>', '300 to 604800 (default 7 days)');

async function experimentOf(ctx: CliContext, id: string, o: Scope): Promise<Row> {
  return (await ctx.client.get<{ experiment: Row }>(experimentPath(id), { query: { appId: o.app, env: o.env } })).body
    .experiment;
}

async function planOf(ctx: CliContext, experimentId: string, planId: string, o: Scope): Promise<Row> {
  return (await ctx.client.get<{ plan: Row }>(planPath(experimentId, planId), { query: { appId: o.app, env: o.env } }))
    .body.plan;
}

const revisionOf = async (ctx: CliContext, id: string, o: Scope & { revision?: string }) =>
  o.revision !== undefined
    ? parseInteger('--revision', o.revision, 1)
    : ((await experimentOf(ctx, id, o)).revision as number);
const planVersionOf = async (
  ctx: CliContext,
  experimentId: string,
  planId: string,
  o: Scope & { planVersion?: string },
) =>
  o.planVersion !== undefined
    ? parseInteger('--plan-version', o.planVersion, 1)
    : ((await planOf(ctx, experimentId, planId, o)).planVersion as number);

/** A definition's version for a layer or holdout patch: --version, or the current one. */
async function definitionVersion(
  ctx: CliContext,
  path: string,
  field: string,
  o: Scope & { version?: string },
): Promise<number> {
  if (o.version !== undefined) return parseInteger('--version', o.version, 1);
  return (await ctx.client.get<Row>(path, { query: { appId: o.app, env: o.env } })).body[field].version;
}

function registerProposals(propose_: Command): void {
  const revision = (c: Command) =>
    proposing(c).option('--revision <n>', "the experiment's revision you reviewed (default: the current one)");
  const planVersion = (c: Command) =>
    proposing(c).option('--plan-version <n>', 'the plan version you reviewed (default: the current one)');

  revision(
    propose_
      .command('experiment-transition <experimentId>')
      .description('propose starting, resuming, completing (with a winner) or archiving an experiment'),
  )
    .addOption(
      new Option('--to <state>', 'the state to move to')
        .choices(['running', 'paused', 'completed', 'archived'])
        .makeOptionMandatory(),
    )
    .option('--winner <variant>', 'with --to completed: the winning variant')
    .action(
      action(async (ctx, id: string, o: ProposeOptions & { to: string; winner?: string; revision?: string }) =>
        propose(
          ctx,
          o,
          'experiment.transition',
          given({ experimentId: id, revision: await revisionOf(ctx, id, o), to: o.to, winner: o.winner }),
        ),
      ),
    );

  revision(
    propose_
      .command('experiment-ramp <experimentId>')
      .description('propose a new allocation for a running or paused experiment'),
  )
    .requiredOption('--allocation <percent>', 'the new allocation, 0 to 100')
    .action(
      action(async (ctx, id: string, o: ProposeOptions & { allocation: string; revision?: string }) =>
        propose(ctx, o, 'experiment.ramp', {
          experimentId: id,
          revision: await revisionOf(ctx, id, o),
          allocation: parseNumber('--allocation', o.allocation),
        }),
      ),
    );

  revision(
    propose_
      .command('experiment-iterate <experimentId>')
      .description('propose a new iteration (new salt) of a paused experiment'),
  ).action(
    action(async (ctx, id: string, o: ProposeOptions & { revision?: string }) =>
      propose(ctx, o, 'experiment.iterate', { experimentId: id, revision: await revisionOf(ctx, id, o) }),
    ),
  );

  revision(
    propose_
      .command('experiment-patch <experimentId>')
      .description("propose changing an experiment's fields (served fields only while draft)"),
  )
    .requiredOption('--set <json>', 'the fields to change, e.g. \'{"allocation":20}\'')
    .action(
      action(async (ctx, id: string, o: ProposeOptions & { set: string; revision?: string }) => {
        const fields = parseJsonOption('--set', o.set);
        if (!fields || typeof fields !== 'object' || Array.isArray(fields))
          throw new UsageError('--set takes a JSON object of fields');
        await propose(ctx, o, 'experiment.patch', {
          ...(fields as Row),
          experimentId: id,
          revision: await revisionOf(ctx, id, o),
        });
      }),
    );

  for (const [name, field, idField, extra] of [
    ['layer', 'layer', 'layerId', false],
    ['holdout', 'holdout', 'holdoutId', true],
  ] as const) {
    const cmd = proposing(
      propose_
        .command(`${name}-patch <id>`)
        .description(`propose changing a ${name}'s name or description${extra ? ' or percentage' : ''}`),
    )
      .option('--version <n>', `the ${name}'s version you reviewed (default: the current one)`)
      .option('--name <name>', 'new name')
      .option('--description <text>', 'new description');
    if (extra) cmd.option('--percentage <percent>', 'new share held out, 0.01 to 50');
    cmd.action(
      action(
        async (
          ctx,
          id: string,
          o: ProposeOptions & { version?: string; name?: string; description?: string; percentage?: string },
        ) => {
          const version = await definitionVersion(ctx, `/api/v1/${name}s/${encodeURIComponent(id)}`, field, o);
          await propose(
            ctx,
            o,
            `${name}.patch`,
            given({
              [idField]: id,
              version,
              name: o.name,
              description: o.description,
              percentage: o.percentage === undefined ? undefined : parseNumber('--percentage', o.percentage),
            }),
          );
        },
      ),
    );
  }

  proposing(
    propose_
      .command('rollout-create <experimentId>')
      .description('propose a rollout plan, as `ensign rollouts create` takes it'),
  )
    .requiredOption('--variant <key>', 'the variant to roll out')
    .requiredOption(
      '--steps <list>',
      'percentage:minDurationHours,… increasing and ending at 100, e.g. 10:24,50:24,100:0',
    )
    .option(
      '--guardrail <metricId:revision:max>',
      'a guardrail metric and its largest tolerated relative degradation (repeatable)',
      parseGuardrail,
    )
    .option('--plan-id <id>', 'your own stable id for the plan (default: derived from the proposal)')
    .option('--min-units <n>', 'units per variant a step needs before it can proceed')
    .action(
      action(
        async (
          ctx,
          id: string,
          o: ProposeOptions & { variant: string; steps: string; guardrail?: Row[]; planId?: string; minUnits?: string },
        ) =>
          propose(
            ctx,
            o,
            'rollout.create',
            given({
              experimentId: id,
              planId: o.planId,
              variant: o.variant,
              steps: parseSteps(o.steps),
              guardrails: o.guardrail ?? [],
              minimumUnitsPerStep: o.minUnits === undefined ? undefined : parseInteger('--min-units', o.minUnits, 1),
            }),
          ),
      ),
    );

  planVersion(
    propose_
      .command('rollout-transition <experimentId> <planId>')
      .description('propose activating a plan, moving it to a step or completing it'),
  )
    .addOption(
      new Option('--to <state>', 'the state to move to')
        .choices(['active', 'paused', 'completed', 'cancelled'])
        .makeOptionMandatory(),
    )
    .option('--step <n>', 'with --to active: the step to serve (0 is the first)')
    .action(
      action(
        async (
          ctx,
          experimentId: string,
          planId: string,
          o: ProposeOptions & { to: string; step?: string; planVersion?: string },
        ) =>
          propose(
            ctx,
            o,
            'rollout.transition',
            given({
              experimentId,
              planId,
              planVersion: await planVersionOf(ctx, experimentId, planId, o),
              to: o.to,
              step: o.step === undefined ? undefined : parseInteger('--step', o.step, 0),
            }),
          ),
      ),
    );

  planVersion(
    propose_
      .command('rollout-approve <experimentId> <planId>')
      .description("propose approving the plan's stored recommendation (a proceed: the next step)"),
  )
    .option('--digest <sha256>', 'the recommendation you reviewed (default: the stored one)')
    .action(
      action(
        async (
          ctx,
          experimentId: string,
          planId: string,
          o: ProposeOptions & { digest?: string; planVersion?: string },
        ) => {
          const plan = await planOf(ctx, experimentId, planId, o);
          const digest = o.digest ?? plan.recommendation?.digest;
          if (!digest)
            throw new UsageError(
              'The plan has no stored recommendation: run ensign rollouts recommend … --confirm first.',
            );
          const version =
            o.planVersion === undefined ? plan.planVersion : parseInteger('--plan-version', o.planVersion, 1);
          await propose(ctx, o, 'rollout.approve', {
            experimentId,
            planId,
            planVersion: version,
            recommendationDigest: digest,
          });
        },
      ),
    );
}

function registerStops(experiments: Command, rollouts: Command): void {
  scopeOptions(
    experiments
      .command('stop <experimentId>')
      .description(
        'emergency stop: pause (default) or complete without a winner; direct even in a protected environment',
      ),
  )
    .requiredOption('--reason <text>', 'why: journaled with source emergency in a protected environment')
    .option('--complete', "complete without a winner instead of pausing (the flag's ordinary value is served)")
    .option('--revision <n>', "the experiment's current revision (default: read it first)")
    .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)')
    .action(
      action(
        async (
          ctx,
          id: string,
          o: Scope & { reason: string; complete?: boolean; revision?: string; idempotencyKey?: string },
        ) => {
          const body = {
            appId: o.app,
            env: o.env,
            revision: await revisionOf(ctx, id, o),
            to: o.complete ? 'completed' : 'paused',
            reason: o.reason,
          };
          const res = await ctx.client.post<{ experiment: Row; version: number; changeId: string | null }>(
            `${experimentPath(id)}/transition`,
            body,
            { headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) } },
          );
          emit(ctx.json, res.body, () => {
            const e = res.body.experiment;
            printLine(`${e.key} (${e.id}) is ${e.state} at revision ${e.revision}: ${o.reason}`);
            printLine(
              res.body.changeId
                ? `config version ${res.body.version} (${res.body.changeId})`
                : `config version ${res.body.version} (what is served did not change)`,
            );
          });
        },
      ),
    );

  scopeOptions(
    rollouts
      .command('stop <experimentId> <planId>')
      .description(
        'emergency stop of a plan: pause (default), cancel, or approve the stored recommended rollback; direct even in a protected environment',
      ),
  )
    .requiredOption('--reason <text>', 'why: journaled with source emergency in a protected environment')
    .addOption(new Option('--cancel', 'cancel the plan instead of pausing it').conflicts('rollback'))
    .option('--rollback', 'approve the stored recommend_rollback (or recommend_pause) recommendation')
    .option('--plan-version <n>', 'the plan version you read (default: the current one)')
    .action(
      action(
        async (
          ctx,
          experimentId: string,
          planId: string,
          o: Scope & { reason: string; cancel?: boolean; rollback?: boolean; planVersion?: string },
        ) => {
          const plan = await planOf(ctx, experimentId, planId, o);
          const planVersion =
            o.planVersion === undefined ? plan.planVersion : parseInteger('--plan-version', o.planVersion, 1);
          let res;
          if (o.rollback) {
            const stored = plan.recommendation;
            if (!stored || (stored.kind !== 'recommend_rollback' && stored.kind !== 'recommend_pause')) {
              throw new UsageError(
                `The plan's stored recommendation is ${stored?.kind ?? 'none'}: --rollback approves a recommend_rollback or recommend_pause.`,
                'Run ensign rollouts recommend … --confirm, or stop with --cancel or a pause.',
              );
            }
            res = await ctx.client.post<{ plan: Row; configVersion?: number | null }>(
              `${planPath(experimentId, planId)}/approve`,
              { appId: o.app, env: o.env, planVersion, recommendationDigest: stored.digest, reason: o.reason },
            );
          } else {
            res = await ctx.client.post<{ plan: Row; configVersion?: number | null }>(
              `${planPath(experimentId, planId)}/transition`,
              { appId: o.app, env: o.env, planVersion, to: o.cancel ? 'cancelled' : 'paused', reason: o.reason },
            );
          }
          emit(ctx.json, res.body, () => {
            const p = res.body.plan;
            printLine(`${p.id} v${p.planVersion}: ${p.state} (${o.reason})`);
            if (res.body.configVersion !== undefined && res.body.configVersion !== null)
              printLine(`config version ${res.body.configVersion}`);
          });
        },
      ),
    );
}

export function registerGuardedChangeCommands(program: Command): void {
  const group = (name: string) => {
    const found = program.commands.find((c) => c.name() === name);
    if (!found) throw new Error(`the ${name} command group is registered first`);
    return found;
  };
  registerProposals(group('propose'));
  registerStops(group('experiments'), group('rollouts'));
}

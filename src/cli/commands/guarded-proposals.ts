// `ensign propose <kind> …` for the change kinds of experiments, layers, holdouts and rollout plans
// (decision 0029): each reads the target's current revision (or version, or plan version) and the
// environment's config version unless given, proposes the change and prints its preview.
import { Option, type Command } from 'commander';
import { action, scopeOptions, type CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger, parseJsonOption } from '../input.js';
import { emit, printLine } from '../output.js';
import { given, parseNumber } from './definitions.js';
import { definitionVersion, planOf, planVersionOf, revisionOf, type Row, type Scope } from './guarded-resources.js';
import { printProposal } from './proposal-summary.js';
import { currentVersion } from './rollback.js';
import { parseGuardrail, parseSteps } from './rollouts.js';

interface ProposeOptions extends Scope {
  baseVersion?: string;
  reason?: string;
  expiresIn?: string;
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

export function registerProposals(propose_: Command): void {
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

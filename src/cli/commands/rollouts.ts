// Guarded rollout plans (issue 12).
//   ensign rollouts create <experimentId> --variant <key> --steps 10:24,50:24,100:0 [--guardrail met_…:1:0.05 …] [--plan-id …] [--min-units n] [--dry-run]
//   ensign rollouts list <experimentId> | get <experimentId> <planId>
//   ensign rollouts transition <experimentId> <planId> --to active|paused|completed|cancelled [--step n]
//   ensign rollouts recommend <experimentId> <planId> [--confirm]
//   ensign rollouts approve <experimentId> <planId> [--digest <sha256>]
// Without --plan-version the CLI reads the plan's current version just before the change, and approve
// names the stored recommendation's digest.
import type { Command } from 'commander';
import { action, type CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger } from '../input.js';
import { emit, printLine, printTable } from '../output.js';
import { given, parseNumber, scoped } from './definitions.js';
import { idempotencyKey } from './idempotency.js';

type Scope = { app: string; env: string };
type Row = Record<string, any>;
type Versioned = Scope & { planVersion?: string };

const plansPath = (experimentId: string) => `/api/v1/experiments/${encodeURIComponent(experimentId)}/rollouts`;
const planPath = (experimentId: string, planId: string) => `${plansPath(experimentId)}/${encodeURIComponent(planId)}`;

/** `10:24,50:24,100:0`: percentage:minDurationHours per step. */
export function parseSteps(text: string) {
  return text.split(',').map((part) => {
    const [percentage, hours = '0', ...rest] = part.split(':');
    if (percentage === undefined || rest.length > 0)
      throw new UsageError(`--steps takes percentage:hours,… (got ${part})`);
    return {
      percentage: parseNumber('--steps percentage', percentage),
      minDurationHours: parseNumber('--steps hours', hours),
    };
  });
}

/** `met_…:1:0.05`: metric, revision, largest tolerated relative degradation. */
export function parseGuardrail(text: string, list: Row[] = []) {
  const [metricId, revision, max, ...rest] = text.split(':');
  if (!metricId || revision === undefined || max === undefined || rest.length > 0)
    throw new UsageError(`--guardrail takes metricId:revision:maxRelativeDegradation (got ${text})`);
  return [
    ...list,
    {
      metricId,
      revision: parseInteger('--guardrail revision', revision, 1),
      maxRelativeDegradation: parseNumber('--guardrail degradation', max),
    },
  ];
}

function printPlan(plan: Row): void {
  const step =
    plan.currentStep === null
      ? 'not started'
      : `step ${plan.currentStep} (${plan.steps[plan.currentStep].percentage} %)`;
  printLine(
    `${plan.id} v${plan.planVersion}: ${plan.state}, ${step}, rolling out ${plan.variant} on flag ${plan.flagKey}`,
  );
  if (plan.recommendation)
    printLine(
      `recommendation: ${plan.recommendation.kind}${plan.recommendation.approvedAt ? ' (approved)' : ''} digest ${plan.recommendation.digest}`,
    );
  printTable(
    ['AT', 'ACTION', 'TO', 'STEP', 'CONFIG VERSION'],
    (plan.history as Row[]).map((e) => [e.at, e.action, e.to ?? '', e.step ?? '', e.configVersion ?? '']),
    '',
  );
}

async function current(ctx: CliContext, experimentId: string, planId: string, o: Scope): Promise<Row> {
  return (await ctx.client.get<{ plan: Row }>(planPath(experimentId, planId), { query: { appId: o.app, env: o.env } }))
    .body.plan;
}

async function versionOf(ctx: CliContext, experimentId: string, planId: string, o: Versioned): Promise<number> {
  return o.planVersion === undefined
    ? (await current(ctx, experimentId, planId, o)).planVersion
    : parseInteger('--plan-version', o.planVersion, 1);
}

const versioned = (c: Command) =>
  scoped(c).option('--plan-version <n>', 'the plan version you read (default: the current one)');

export function registerRolloutsCommands(program: Command): void {
  const rollouts = program.command('rollouts').description('guarded rollout plans of experiment variants');

  scoped(rollouts.command('create <experimentId>').description('create a plan in draft (or preview it with --dry-run)'))
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
    .option('--plan-id <id>', 'your own stable id for the plan')
    .option('--min-units <n>', 'units per variant a step needs before it can proceed')
    .option('--dry-run', 'validate and show the plan without storing it')
    .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)')
    .action(
      action(
        async (
          ctx,
          experimentId: string,
          o: Scope & {
            variant: string;
            steps: string;
            guardrail?: Row[];
            planId?: string;
            minUnits?: string;
            dryRun?: boolean;
            idempotencyKey?: string;
          },
        ) => {
          const body = given({
            appId: o.app,
            env: o.env,
            planId: o.planId,
            dryRun: o.dryRun,
            variant: o.variant,
            steps: parseSteps(o.steps),
            guardrails: o.guardrail ?? [],
            minimumUnitsPerStep: o.minUnits === undefined ? undefined : parseInteger('--min-units', o.minUnits, 1),
          });
          const res = await ctx.client.post<{ plan: Row; dryRun?: boolean }>(plansPath(experimentId), body, {
            headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) },
          });
          emit(ctx.json, res.body, () => {
            if (res.body.dryRun) printLine('dry run: nothing was stored');
            printPlan(res.body.plan);
          });
        },
      ),
    );

  scoped(rollouts.command('list <experimentId>').description("the experiment's plans, newest first")).action(
    action(async (ctx, experimentId: string, o: Scope) => {
      const res = await ctx.client.get<{ plans: Row[] }>(plansPath(experimentId), {
        query: { appId: o.app, env: o.env },
      });
      emit(ctx.json, res.body, () =>
        printTable(
          ['ID', 'VERSION', 'STATE', 'VARIANT', 'STEP', 'RECOMMENDATION'],
          res.body.plans.map((p) => [
            p.id,
            p.planVersion,
            p.state,
            p.variant,
            p.currentStep ?? '',
            p.recommendation?.kind ?? '',
          ]),
          'No rollout plans.',
        ),
      );
    }),
  );

  scoped(
    rollouts.command('get <experimentId> <planId>').description('a plan with its recommendation and history'),
  ).action(
    action(async (ctx, experimentId: string, planId: string, o: Scope) => {
      const plan = await current(ctx, experimentId, planId, o);
      emit(ctx.json, { plan }, () => printPlan(plan));
    }),
  );

  versioned(
    rollouts
      .command('transition <experimentId> <planId>')
      .description('activate, move to a step, pause, complete or cancel'),
  )
    .requiredOption('--to <state>', 'active | paused | completed | cancelled')
    .option('--step <n>', 'with --to active: the step to serve (0 is the first)')
    .action(
      action(async (ctx, experimentId: string, planId: string, o: Versioned & { to: string; step?: string }) => {
        const body = given({
          appId: o.app,
          env: o.env,
          planVersion: await versionOf(ctx, experimentId, planId, o),
          to: o.to,
          step: o.step === undefined ? undefined : parseInteger('--step', o.step, 0),
        });
        const res = await ctx.client.post<{ plan: Row }>(`${planPath(experimentId, planId)}/transition`, body);
        emit(ctx.json, res.body, () => printPlan(res.body.plan));
      }),
    );

  versioned(
    rollouts
      .command('recommend <experimentId> <planId>')
      .description('evaluate guardrails and health on the newest aggregate'),
  )
    .option('--confirm', 'store the recommendation on the plan so it can be approved')
    .action(
      action(async (ctx, experimentId: string, planId: string, o: Versioned & { confirm?: boolean }) => {
        const body = given({
          appId: o.app,
          env: o.env,
          planVersion: await versionOf(ctx, experimentId, planId, o),
          confirm: o.confirm,
        });
        const res = await ctx.client.post<{ recommendation: Row; plan: Row }>(
          `${planPath(experimentId, planId)}/recommend`,
          body,
        );
        emit(ctx.json, res.body, () => {
          const r = res.body.recommendation;
          printLine(`${r.kind} (plan v${r.planVersion}, digest ${r.digest})`);
          for (const reason of r.reasons as string[]) printLine(`  ${reason}`);
          if (!o.confirm) printLine('not stored: add --confirm to store it for approval');
        });
      }),
    );

  versioned(
    rollouts
      .command('approve <experimentId> <planId>')
      .description('act on the stored recommendation: proceed, pause or roll back'),
  )
    .option('--digest <sha256>', 'the recommendation you reviewed (default: the stored one)')
    .action(
      action(async (ctx, experimentId: string, planId: string, o: Versioned & { digest?: string }) => {
        const plan = await current(ctx, experimentId, planId, o);
        const digest = o.digest ?? plan.recommendation?.digest;
        if (!digest)
          throw new UsageError(
            'The plan has no stored recommendation: run ensign rollouts recommend … --confirm first.',
          );
        const planVersion =
          o.planVersion === undefined ? plan.planVersion : parseInteger('--plan-version', o.planVersion, 1);
        const res = await ctx.client.post<{ plan: Row; configVersion: number | null }>(
          `${planPath(experimentId, planId)}/approve`,
          { appId: o.app, env: o.env, planVersion, recommendationDigest: digest },
        );
        emit(ctx.json, res.body, () => {
          printPlan(res.body.plan);
          if (res.body.configVersion !== null) printLine(`config version ${res.body.configVersion}`);
        });
      }),
    );
}

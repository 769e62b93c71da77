// rollback plan / apply: POST /api/v1/rollbacks/plan and /apply (issue 9). Plan first, review, then
// apply the plan's digest; a changed environment answers 409 and nothing is applied.
import type { Command } from 'commander';
import { action, scopeOptions, type CliContext } from '../context.js';
import { parseInteger } from '../input.js';
import { emit, printLine, printPairs, printTable, show } from '../output.js';
import { idempotencyKey } from './idempotency.js';

export interface RollbackPlan {
  fromVersion: number;
  targetVersion: number;
  resultVersion: number;
  scope: { flags: string[] | null; advanced: boolean; privacy: boolean };
  changes: { op: string; resourceType: string; key: string; path: string; before?: unknown; after?: unknown }[];
  warnings: string[];
  fromState: string;
  toState: string;
  digest: string;
}

export interface RollbackOptions {
  app: string;
  env: string;
  to: string;
  expectedVersion?: string;
  flags?: string;
  advanced?: boolean;
  privacy?: boolean;
}

export const rollbackOptions = (command: Command) =>
  scopeOptions(command)
    .requiredOption('--to <version>', 'the retained version to restore')
    .option('--expected-version <n>', 'the current version you reviewed (default: read now)')
    .option('--flags <keys>', 'restore only these flags (comma-separated)')
    .option('--advanced', 'restore the advanced configuration (ttl and other settings)')
    .option('--privacy', 'restore the privacy settings');

/** Without --flags, --advanced or --privacy the whole state is restored. */
function scopeOf(o: RollbackOptions): Record<string, unknown> | undefined {
  if (o.flags === undefined && !o.advanced && !o.privacy) return undefined;
  return {
    ...(o.flags !== undefined
      ? {
          flags: o.flags
            .split(',')
            .map((k) => k.trim())
            .filter(Boolean),
        }
      : {}),
    ...(o.advanced ? { advanced: true } : {}),
    ...(o.privacy ? { privacy: true } : {}),
  };
}

export async function currentVersion(ctx: CliContext, app: string, env: string): Promise<number> {
  return (await ctx.client.get<{ version: number }>('/api/v1/flags', { query: { appId: app, env } })).body.version;
}

/** The rollback request fields (what plan takes, and what a proposal carries besides the digest). */
export async function rollbackRequest(ctx: CliContext, o: RollbackOptions) {
  const expectedVersion =
    o.expectedVersion !== undefined
      ? parseInteger('--expected-version', o.expectedVersion)
      : await currentVersion(ctx, o.app, o.env);
  const scope = scopeOf(o);
  return { targetVersion: parseInteger('--to', o.to), expectedVersion, ...(scope ? { scope } : {}) };
}

export function printPlan(plan: RollbackPlan): void {
  printPairs([
    ['from version', plan.fromVersion],
    ['target version', plan.targetVersion],
    ['result version', plan.resultVersion],
    ['scope', show(plan.scope)],
    ['digest', plan.digest],
  ]);
  printTable(
    ['OP', 'RESOURCE', 'KEY', 'PATH', 'BEFORE', 'AFTER'],
    plan.changes.map((c) => [
      c.op,
      c.resourceType,
      c.key,
      c.path,
      'before' in c ? show(c.before) : '',
      'after' in c ? show(c.after) : '',
    ]),
    'No changes: the environment already matches the target.',
  );
  for (const w of plan.warnings) printLine(`warning: ${w}`);
}

export function registerRollbackCommands(program: Command): void {
  const rollback = program.command('rollback').description('restore an older configuration version as a new version');

  rollbackOptions(
    rollback.command('plan').description('show what restoring a version would change (changes nothing)'),
  ).action(
    action(async (ctx, o: RollbackOptions) => {
      const res = await ctx.client.post<{ plan: RollbackPlan }>('/api/v1/rollbacks/plan', {
        appId: o.app,
        env: o.env,
        ...(await rollbackRequest(ctx, o)),
      });
      emit(ctx.json, res.body, () => {
        printPlan(res.body.plan);
        printLine(
          `\napply with: ensign rollback apply --app ${o.app} --env ${o.env} --to ${o.to} --expected-version ${res.body.plan.fromVersion} --plan-digest ${res.body.plan.digest}`,
        );
      });
    }),
  );

  rollbackOptions(rollback.command('apply').description('apply a reviewed plan: one new version, journaled'))
    .requiredOption('--plan-digest <digest>', 'the digest printed by `ensign rollback plan`')
    .option('--reason <text>', 'recorded in the journal')
    .option('--idempotency-key <key>', 'default: a fresh one')
    .action(
      action(async (ctx, o: RollbackOptions & { planDigest: string; reason?: string; idempotencyKey?: string }) => {
        const key = idempotencyKey(o.idempotencyKey);
        const body = {
          appId: o.app,
          env: o.env,
          ...(await rollbackRequest(ctx, o)),
          planDigest: o.planDigest,
          idempotencyKey: key,
          ...(o.reason ? { reason: o.reason } : {}),
        };
        const res = await ctx.client.post<{ version: number; changeId: string | null; plan: RollbackPlan }>(
          '/api/v1/rollbacks/apply',
          body,
        );
        emit(ctx.json, res.body, () => {
          if (res.body.changeId === null) printLine(`Nothing to restore (version ${res.body.version}).`);
          else
            printLine(
              `Restored version ${res.body.plan.targetVersion} as version ${res.body.version}, change ${res.body.changeId}.`,
            );
        });
      }),
    );
}

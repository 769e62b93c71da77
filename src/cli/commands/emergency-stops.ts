// `ensign experiments stop` and `ensign rollouts stop`: the emergency moves, made directly even in a
// protected environment (journaled with source emergency there), never proposed.
import { Option, type Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger } from '../input.js';
import { emit, printLine } from '../output.js';
import { experimentPath, planOf, planPath, revisionOf, type Row, type Scope } from './guarded-resources.js';
import { idempotencyKey } from './idempotency.js';

export function registerStops(experiments: Command, rollouts: Command): void {
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

// The experiments, rollout plans, layers and holdouts a guarded change acts on, read over HTTP for
// the revision (or version, or plan version) a command sends when the caller did not give one.
import type { CliContext } from '../context.js';
import { parseInteger } from '../input.js';

export type Row = Record<string, any>;
export type Scope = { app: string; env: string };

export const experimentPath = (id: string) => `/api/v1/experiments/${encodeURIComponent(id)}`;
export const planPath = (experimentId: string, planId: string) =>
  `${experimentPath(experimentId)}/rollouts/${encodeURIComponent(planId)}`;

async function experimentOf(ctx: CliContext, id: string, o: Scope): Promise<Row> {
  return (await ctx.client.get<{ experiment: Row }>(experimentPath(id), { query: { appId: o.app, env: o.env } })).body
    .experiment;
}

export async function planOf(ctx: CliContext, experimentId: string, planId: string, o: Scope): Promise<Row> {
  return (await ctx.client.get<{ plan: Row }>(planPath(experimentId, planId), { query: { appId: o.app, env: o.env } }))
    .body.plan;
}

export const revisionOf = async (ctx: CliContext, id: string, o: Scope & { revision?: string }) =>
  o.revision !== undefined
    ? parseInteger('--revision', o.revision, 1)
    : ((await experimentOf(ctx, id, o)).revision as number);
export const planVersionOf = async (
  ctx: CliContext,
  experimentId: string,
  planId: string,
  o: Scope & { planVersion?: string },
) =>
  o.planVersion !== undefined
    ? parseInteger('--plan-version', o.planVersion, 1)
    : ((await planOf(ctx, experimentId, planId, o)).planVersion as number);

/** A definition's version for a layer or holdout patch: --version, or the current one. */
export async function definitionVersion(
  ctx: CliContext,
  path: string,
  field: string,
  o: Scope & { version?: string },
): Promise<number> {
  if (o.version !== undefined) return parseInteger('--version', o.version, 1);
  return (await ctx.client.get<Row>(path, { query: { appId: o.app, env: o.env } })).body[field].version;
}

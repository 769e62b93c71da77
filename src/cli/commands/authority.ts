// The four-eyes authority workflow from the command line (issue 9): propose (from a flag edit, a
// bulk file or a rollback), proposals list / show, approve, execute, readback, and scoped tokens.
import { Option, type Command } from 'commander';
import { ok, type RequestBody, type ResponseBody } from '../api.js';
import { action, scopeOptions, type CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger, readJsonFile } from '../input.js';
import { emit, printLine, printPairs, printTable, show } from '../output.js';
import { flagFieldOptions, flagFields, type FlagFieldOptions } from './flags.js';
import { summarizeChange } from './proposal-summary.js';
import {
  currentVersion,
  printPlan,
  rollbackOptions,
  rollbackRequest,
  type RollbackOptions,
  type RollbackPlan,
} from './rollback.js';

type Proposal = ResponseBody<'proposeChange'>['proposal'];

interface Approval {
  id: string;
  approvedBy: string;
  comment: string | null;
  createdAt: string;
}

interface Receipt {
  id: string;
  proposalId: string;
  appliedVersion: number;
  changeId: string | null;
  stateDigest: string;
  approvals: Approval[];
  executedAt: string;
}

interface ProposalView {
  proposal: Proposal;
  approvals: Approval[];
  receipt: Receipt | null;
  status: string;
}

interface Scope {
  app: string;
  env: string;
}

interface ProposeOptions extends Scope {
  baseVersion?: string;
  reason?: string;
  expiresIn?: string;
}

const scoped = (command: Command) => scopeOptions(command);
const proposing = (command: Command) =>
  scoped(command)
    .option('--base-version <n>', 'the version the change is reviewed against (default: the current one)')
    .option('--reason <text>', 'why (at most 1000 characters)')
    .option('--expires-in <seconds>', '300 to 604800 (default 7 days)');

const who = (a: { type: string; userId?: string; keyFingerprint?: string }) =>
  [a.type, a.userId ?? a.keyFingerprint].filter(Boolean).join(':');

function printProposal(p: Proposal): void {
  printPairs([
    ['proposal', p.id],
    ['env', p.env],
    ['change', `${p.change.kind} ${show(p.change.body)}`],
    ['base version', p.baseVersion],
    ['result version', p.preview.resultVersion],
    ['proposed by', who(p.proposedBy)],
    ['approvals needed', p.requiredApprovals],
    ['reason', p.reason],
    ['expires', p.expiresAt],
    ['digest', p.digest],
  ]);
  printTable(
    ['OP', 'RESOURCE', 'KEY', 'PATH', 'BEFORE', 'AFTER'],
    p.preview.changes.map((c) => [
      c.op,
      c.resourceType,
      c.key,
      c.path,
      'before' in c ? show(c.before) : '',
      'after' in c ? show(c.after) : '',
    ]),
    'No changes.',
  );
}

/** POST /api/v1/authority/propose, typed from the OpenAPI document (api.ts). */
async function propose(
  ctx: CliContext,
  o: ProposeOptions,
  change: RequestBody<'proposeChange'>['change'],
  baseVersion?: number,
) {
  const base =
    baseVersion ??
    (o.baseVersion !== undefined
      ? parseInteger('--base-version', o.baseVersion)
      : await currentVersion(ctx, o.app, o.env));
  const body: RequestBody<'proposeChange'> = {
    appId: o.app,
    env: o.env,
    baseVersion: base,
    change,
    ...(o.reason ? { reason: o.reason } : {}),
    ...(o.expiresIn !== undefined ? { expiresInSeconds: parseInteger('--expires-in', o.expiresIn, 300) } : {}),
  };
  const answer = await ok(ctx.client.api.POST('/api/v1/authority/propose', { body }));
  emit(ctx.json, answer, () => {
    printProposal(answer.proposal);
    printLine(
      `\nask another member: ensign approve ${answer.proposal.id} --app ${o.app} --env ${o.env} --digest ${answer.proposal.digest}`,
    );
  });
}

async function showProposal(ctx: CliContext, app: string, id: string) {
  return (
    await ctx.client.get<ProposalView>(`/api/v1/authority/proposals/${encodeURIComponent(id)}`, {
      query: { appId: app },
    })
  ).body;
}

/** The digest to approve or execute: the one given, else the proposal's own (shown first). */
async function digestFor(ctx: CliContext, app: string, id: string, given?: string): Promise<string> {
  if (given) return given;
  const view = await showProposal(ctx, app, id);
  if (!ctx.json) printProposal(view.proposal);
  return view.proposal.digest;
}

function registerPropose(program: Command): void {
  const cmd = program
    .command('propose')
    .description('propose a configuration change for approval (authority workflow)');

  // Every field `flags set` takes (flagFieldOptions); --base-version stands for its --expected-version.
  flagFieldOptions(
    proposing(cmd.command('set <key>').description('propose a flag change, as `ensign flags set` takes it')),
  ).action(
    action(async (ctx, key: string, o: ProposeOptions & FlagFieldOptions) => {
      await propose(ctx, o, { kind: 'flag.patch', body: flagFields(key, o) });
    }),
  );

  proposing(cmd.command('toggle <key>').description('propose flipping a bool flag')).action(
    action(async (ctx, key: string, o: ProposeOptions) =>
      propose(ctx, o, { kind: 'flag.patch', body: { key, op: 'toggle' } }),
    ),
  );

  proposing(cmd.command('delete <key>').description('propose deleting a flag')).action(
    action(async (ctx, key: string, o: ProposeOptions) => propose(ctx, o, { kind: 'flag.delete', body: { key } })),
  );

  proposing(cmd.command('bulk').description('propose a bulk apply from a JSON file, as `ensign flags bulk` takes it'))
    .requiredOption('--file <path>', 'JSON object with any of: flags, advanced, privacy')
    .action(
      action(async (ctx, o: ProposeOptions & { file: string }) => {
        const { value } = readJsonFile(o.file);
        if (!value || typeof value !== 'object' || Array.isArray(value))
          throw new UsageError(`${o.file} must hold a JSON object with flags, advanced and/or privacy`);
        await propose(ctx, o, { kind: 'bulk.apply', body: value as Record<string, unknown> });
      }),
    );

  rollbackOptions(cmd.command('rollback').description('propose restoring a retained version (plans it first)'))
    .option('--reason <text>', 'why')
    .option('--expires-in <seconds>', '300 to 604800 (default 7 days)')
    .action(
      action(async (ctx, o: RollbackOptions & ProposeOptions) => {
        const request = await rollbackRequest(ctx, o);
        const { plan } = (
          await ctx.client.post<{ plan: RollbackPlan }>('/api/v1/rollbacks/plan', {
            appId: o.app,
            env: o.env,
            ...request,
          })
        ).body;
        if (!ctx.json) printPlan(plan);
        const { expectedVersion, ...body } = request;
        await propose(ctx, o, { kind: 'rollback.apply', body: { ...body, planDigest: plan.digest } }, expectedVersion);
      }),
    );
}

export function registerAuthorityCommands(program: Command): void {
  registerPropose(program);

  const proposals = program.command('proposals').description('read proposals of the authority workflow');
  scoped(proposals.command('list').description('proposals of an environment, newest first, with their status'))
    .addOption(
      new Option('--status <status>', 'only this status').choices(['open', 'approved', 'executed', 'expired', 'stale']),
    )
    .action(
      action(async (ctx, o: Scope & { status?: string }) => {
        const res = await ctx.client.get<{ proposals: ProposalView[] }>('/api/v1/authority/proposals', {
          query: { appId: o.app, env: o.env, status: o.status },
        });
        emit(ctx.json, res.body, () =>
          printTable(
            ['PROPOSAL', 'STATUS', 'CHANGE', 'SUMMARY', 'BASE', 'APPROVALS', 'BY', 'CREATED'],
            res.body.proposals.map((v) => [
              v.proposal.id,
              v.status,
              v.proposal.change.kind,
              summarizeChange(v.proposal.change),
              v.proposal.baseVersion,
              `${v.approvals.length}/${v.proposal.requiredApprovals}`,
              who(v.proposal.proposedBy),
              v.proposal.createdAt,
            ]),
            'No proposals.',
          ),
        );
      }),
    );
  scopeOptions(
    proposals.command('show <proposalId>').description('one proposal with approvals, receipt and status'),
    'app',
  ).action(
    action(async (ctx, id: string, o: { app: string }) => {
      const view = await showProposal(ctx, o.app, id);
      emit(ctx.json, view, () => {
        printProposal(view.proposal);
        printLine(`\nstatus: ${view.status}`);
        printTable(
          ['APPROVAL', 'BY', 'COMMENT', 'AT'],
          view.approvals.map((a) => [a.id, a.approvedBy, a.comment, a.createdAt]),
          'No approvals yet.',
        );
        if (view.receipt)
          printLine(
            `executed: receipt ${view.receipt.id}, version ${view.receipt.appliedVersion}, change ${view.receipt.changeId}`,
          );
      });
    }),
  );

  scoped(program.command('approve <proposalId>').description("approve someone else's proposal"))
    .option('--digest <digest>', "the digest you reviewed (default: the proposal's, shown first)")
    .option('--comment <text>', 'recorded with the approval')
    .action(
      action(async (ctx, id: string, o: Scope & { digest?: string; comment?: string }) => {
        const digest = await digestFor(ctx, o.app, id, o.digest);
        const res = await ctx.client.post<{ approval: Approval }>('/api/v1/authority/approve', {
          appId: o.app,
          env: o.env,
          proposalId: id,
          digest,
          ...(o.comment ? { comment: o.comment } : {}),
        });
        emit(ctx.json, res.body, () => printLine(`Approved: ${res.body.approval.id}.`));
      }),
    );

  scoped(program.command('execute <proposalId>').description('apply an approved proposal (at most once)'))
    .option('--digest <digest>', "the proposal digest (default: the proposal's)")
    .action(
      action(async (ctx, id: string, o: Scope & { digest?: string }) => {
        const digest = await digestFor(ctx, o.app, id, o.digest);
        const res = await ctx.client.post<{ receipt: Receipt }>('/api/v1/authority/execute', {
          appId: o.app,
          env: o.env,
          proposalId: id,
          digest,
        });
        emit(ctx.json, res.body, () =>
          printLine(
            `Executed: receipt ${res.body.receipt.id}, version ${res.body.receipt.appliedVersion}, change ${res.body.receipt.changeId}.`,
          ),
        );
      }),
    );

  scoped(
    program.command('readback <receiptId>').description('is an executed change still in effect, and served?'),
  ).action(
    action(async (ctx, receiptId: string, o: Scope) => {
      const res = await ctx.client.post<{ receipt: Receipt; observation: Record<string, unknown> }>(
        '/api/v1/authority/readback',
        { appId: o.app, env: o.env, receiptId },
      );
      emit(ctx.json, res.body, () =>
        printPairs([
          ['receipt', res.body.receipt.id],
          ['applied version', res.body.receipt.appliedVersion],
          ...Object.entries(res.body.observation).map(([k, v]): [string, string] => [k, show(v)]),
        ]),
      );
    }),
  );

  const tokens = program.command('tokens').description('scoped capability tokens');
  tokens
    .command('create')
    .description('mint a scoped cli_ token (shown once) with your login token')
    .requiredOption('--capabilities <list>', 'comma-separated: read, change, propose, approve, execute')
    .requiredOption('--apps <appIds>', 'comma-separated app ids')
    .option('--envs <slugs>', 'comma-separated environment slugs (default: all)')
    .option('--ttl <seconds>', '60 to 86400 (default 3600)')
    .option('--name <name>', 'a label')
    .action(
      action(async (ctx, o: { capabilities: string; apps: string; envs?: string; ttl?: string; name?: string }) => {
        const list = (text: string) =>
          text
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
        const body = {
          capabilities: list(o.capabilities),
          appIds: list(o.apps),
          ...(o.envs ? { envs: list(o.envs) } : {}),
          ...(o.ttl ? { ttlSeconds: parseInteger('--ttl', o.ttl, 60) } : {}),
          ...(o.name ? { name: o.name } : {}),
        };
        const res = await ctx.client.post<{ token: string; id: string; expiresAt: string }>(
          '/api/v1/authority/tokens',
          body,
        );
        emit(ctx.json, res.body, () => {
          printLine(res.body.token);
          printLine(`expires ${res.body.expiresAt}; shown once (use it as ENSIGN_TOKEN).`);
        });
      }),
    );
}

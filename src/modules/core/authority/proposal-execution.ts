// Execution of an approved proposal: the change applied as one new version (through the config
// mutator, or the registered kind's module), read back inside the same transaction and compared
// with the preview, at most once per proposal (its row is locked and its receipt unique).
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { canonicalJson, digestOf } from '../../../platform/canonical-json.js';
import { conflict } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import { authorityOf } from '../journal/index.js';
import {
  diffStates,
  resolveTarget,
  type ConfigMutator,
  type ConfigState,
  type ConfigStateStore,
  type EnvironmentTarget,
} from '../config/index.js';
import type { Approval, BuiltinChangeKind, Proposal, Receipt } from './authority.model.js';
import * as repo from './authority.repository.js';
import { editFor, type ChangeEditDeps } from './change-edits.js';
import type { ChangeKindRegistry } from './change-kind-registry.js';
import type { ChangeKindHandler, ProposalClearance } from './change-kinds.js';
import { digestMismatch, readbackMismatch, staleProposal } from './proposal-conflicts.js';
import { proposalRowOf } from './proposal-views.js';

interface ExecutionDeps extends ChangeEditDeps {
  db: Kysely<Database>;
  access: AppAccess;
  store: ConfigStateStore;
  mutator: ConfigMutator;
  now: () => number;
}

export interface ExecuteInput {
  appId: string;
  env: string;
  proposalId: string;
  digest: string;
}

/** The version applied and the journal's change for it (null when the change made no new version). */
interface Applied {
  version: number;
  changeId: string | null;
}

function ensureExecutable(
  proposal: Proposal,
  approvals: Approval[],
  target: EnvironmentTarget & { requiredApprovals: number; env: string },
  now: number,
) {
  if (Date.parse(proposal.expiresAt) <= now) {
    throw conflict('proposal_expired', `The proposal expired at ${proposal.expiresAt}.`, {
      resolution: 'Propose the change again.',
    });
  }
  if (approvals.length < target.requiredApprovals) {
    throw conflict(
      'approvals_missing',
      `The proposal has ${approvals.length} of the ${target.requiredApprovals} approvals environment ${target.env} requires.`,
      {
        metadata: { approvals: approvals.length, requiredApprovals: target.requiredApprovals },
        resolution: 'Ask other owners or editors to approve it (POST /api/v1/authority/approve), then execute again.',
      },
    );
  }
}

/** A registered kind made through its module; the environment stays locked from here to the read-back. */
async function applyRegistered(
  deps: ExecutionDeps,
  trx: Executor,
  principal: Principal,
  target: EnvironmentTarget,
  proposal: Proposal,
  handler: ChangeKindHandler,
  clearance: ProposalClearance,
): Promise<{ base: ConfigState; applied: Applied }> {
  const { store } = deps;
  const current = await store.lock(trx, target);
  if (current.version !== proposal.baseVersion) throw staleProposal(proposal.baseVersion, current.version);
  await handler.apply(trx, {
    principal,
    target,
    body: proposal.change.body,
    clearance,
    reason: proposal.reason,
  });
  const after = (await store.readIn(trx, target.envId))!;
  const changeId =
    after.version > current.version
      ? ((await store.retained(trx, target.envId, after.version))?.changeId ?? null)
      : null;
  return { base: current.state, applied: { version: after.version, changeId } };
}

/** Core's own kinds: the edit applied through the config mutator as one new version. */
async function applyBuiltin(
  deps: ExecutionDeps,
  trx: Executor,
  principal: Principal,
  target: EnvironmentTarget & { ownerUserId: string },
  proposal: Proposal,
  clearance: ProposalClearance,
): Promise<{ base: ConfigState | null; applied: Applied }> {
  let base: ConfigState | null = null;
  const applied = await deps.mutator.apply(
    trx,
    { target, source: 'authority', authority: authorityOf(principal), clearance },
    async (current) => {
      if (current.version !== proposal.baseVersion) throw staleProposal(proposal.baseVersion, current.version);
      base = JSON.parse(canonicalJson(current.state)) as ConfigState;
      return editFor(
        deps,
        trx,
        target,
        current,
        proposal.change as { kind: BuiltinChangeKind; body: Record<string, unknown> },
      );
    },
  );
  return { base, applied };
}

/** What is now stored must be what the approvers saw; otherwise the transaction is rolled back. */
async function readBackAgainstPreview(
  store: ConfigStateStore,
  trx: Executor,
  target: EnvironmentTarget,
  proposal: Proposal,
  base: ConfigState | null,
  handler: ChangeKindHandler | undefined,
) {
  const stored = await store.readIn(trx, target.envId);
  const observed = stored && base !== null ? diffStates(base, stored.state) : null;
  if (
    !stored ||
    stored.version !== proposal.preview.resultVersion ||
    canonicalJson(observed) !== canonicalJson(proposal.preview.changes)
  ) {
    throw readbackMismatch(proposal.preview.resultVersion, stored?.version ?? null);
  }
  if (handler && proposal.preview.resource) {
    const view = await handler.view(trx, target, proposal.change.body, proposal.id);
    const previewed = proposal.preview.resource;
    if (
      view.type !== previewed.type ||
      view.id !== previewed.id ||
      canonicalJson(view.state) !== canonicalJson(previewed.after)
    ) {
      throw readbackMismatch(proposal.preview.resultVersion, stored.version);
    }
  }
  return stored;
}

export async function executeProposal(
  deps: ExecutionDeps,
  registry: ChangeKindRegistry,
  principal: Principal,
  input: ExecuteInput,
): Promise<Receipt> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const run = () =>
    inTransaction(deps.db, async (trx) => {
      const target = await resolveTarget(deps.access, principal, input.appId, input.env, 'execute', trx);
      // Locked: a concurrent execute (any process) waits here, then finds the receipt below.
      const row = await proposalRowOf(trx, target, input.proposalId, true);
      if (input.digest !== row.digest) throw digestMismatch(row.digest);
      const [done] = await repo.receiptsOf(trx, [row.id]);
      if (done) return repo.toReceipt(done);
      const proposal = repo.toProposal(row);
      const approvals = (await repo.approvalsOf(trx, [row.id])).map(repo.toApproval);
      ensureExecutable(proposal, approvals, target, deps.now());
      const receiptId = newId('rcp');
      const clearance: ProposalClearance = {
        type: 'proposal',
        proposalId: proposal.id,
        phase: 'execute',
        context: {
          proposalId: proposal.id,
          receiptId,
          proposedBy: proposal.proposedBy,
          approvers: approvals.map((a) => a.approvedBy),
        },
      };
      const handler = registry.handlerOf(proposal.change.kind);
      const { base, applied } = handler
        ? await applyRegistered(deps, trx, principal, target, proposal, handler, clearance)
        : await applyBuiltin(deps, trx, principal, target, proposal, clearance);
      const stored = await readBackAgainstPreview(deps.store, trx, target, proposal, base, handler);
      const receipt = {
        id: receiptId,
        proposal_id: proposal.id,
        app_id: target.appId,
        env_id: target.envId,
        digest: proposal.digest,
        applied_version: applied.version,
        change_id: applied.changeId,
        state_digest: digestOf(stored.state),
        approvals: JSON.stringify(approvals),
        executed_by: JSON.stringify(authorityOf(principal)),
        executed_at: iso(deps.now()),
      };
      await repo.insertReceipt(trx, receipt);
      return repo.toReceipt(receipt);
    });
  try {
    return await run();
  } catch (err) {
    // Lost a race to another process on the unique receipt: answer the winner's receipt.
    if (!isUniqueViolation(err)) throw err;
    return run();
  }
}

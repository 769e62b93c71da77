// Proposals as they are read back: each with its approvals, its receipt and its status, which
// depends on the environment's current version and, for a registered kind, on whether its
// resource still is what the proposal previewed.
import type { Executor } from '../../../db/transaction.js';
import { canonicalJson } from '../../../platform/canonical-json.js';
import type { ConfigStateStore, EnvironmentTarget } from '../config/index.js';
import { statusOf, type Approval, type Proposal, type ProposalStatus, type Receipt } from './authority.model.js';
import * as repo from './authority.repository.js';
import type { ChangeKindRegistry } from './change-kind-registry.js';
import { proposalNotFound } from './proposal-conflicts.js';

export interface ProposalView {
  proposal: Proposal;
  approvals: Approval[];
  receipt: Receipt | null;
  status: ProposalStatus;
}

interface ProposalViewDeps {
  store: ConfigStateStore;
  now: () => number;
}

/** Whether a registered kind's resource is no longer what the proposal previewed (its revision moved). */
async function resourceMoved(
  registry: ChangeKindRegistry,
  executor: Executor,
  target: EnvironmentTarget,
  proposal: Proposal,
): Promise<boolean> {
  const handler = registry.handlerOf(proposal.change.kind);
  if (!handler || !proposal.preview.resource) return false;
  const now = await handler.view(executor, target, proposal.change.body, proposal.id);
  return canonicalJson(now.state) !== canonicalJson(proposal.preview.resource.before);
}

export async function proposalViews(
  deps: ProposalViewDeps,
  registry: ChangeKindRegistry,
  executor: Executor,
  target: EnvironmentTarget & { requiredApprovals: number },
  rows: repo.ProposalRow[],
): Promise<ProposalView[]> {
  const ids = rows.map((r) => r.id);
  // Sequential reads on the caller's executor: inside a SQLite transaction there is one connection.
  const approvals = await repo.approvalsOf(executor, ids);
  const receipts = await repo.receiptsOf(executor, ids);
  const current = (await deps.store.readIn(executor, target.envId)) ?? { version: 0 };
  const now = deps.now();
  const out: ProposalView[] = [];
  for (const row of rows) {
    const proposal = repo.toProposal(row);
    const mine = approvals.filter((a) => a.proposal_id === row.id).map(repo.toApproval);
    const receipt = receipts.find((r) => r.proposal_id === row.id);
    const facts = {
      receipt: !!receipt,
      approvals: mine.length,
      currentVersion: current.version,
      requiredApprovals: target.requiredApprovals,
      now,
    };
    let status = statusOf(proposal, facts);
    if ((status === 'open' || status === 'approved') && (await resourceMoved(registry, executor, target, proposal)))
      status = statusOf(proposal, { ...facts, resourceMoved: true });
    out.push({ proposal, approvals: mine, receipt: receipt ? repo.toReceipt(receipt) : null, status });
  }
  return out;
}

/** A proposal's row in the environment (404 otherwise), locked when `lock` is set. */
export async function proposalRowOf(executor: Executor, target: EnvironmentTarget, id: string, lock = false) {
  const row = await repo.findProposal(executor, target.envId, id, lock);
  if (!row) throw proposalNotFound(id);
  return row;
}

import { forUpdate } from '../../../db/row-locks.js';
import type { Executor } from '../../../db/transaction.js';
import type { ApprovalsTable, ProposalsTable, ReceiptsTable, AuthorityTables } from './authority.table.js';
import type { Approval, Proposal, Receipt } from './authority.model.js';
import { ownTables } from '../../../db/owned-tables.js';

const own = ownTables<AuthorityTables>();

export const toProposal = (r: ProposalsTable): Proposal => ({
  id: r.id,
  appId: r.app_id,
  env: r.env,
  baseVersion: Number(r.base_version),
  change: JSON.parse(r.change),
  preview: JSON.parse(r.preview),
  digest: r.digest,
  proposedBy: JSON.parse(r.proposed_by),
  requiredApprovals: Number(r.required_approvals),
  reason: r.reason,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

export const toApproval = (r: ApprovalsTable): Approval => ({
  id: r.id,
  proposalId: r.proposal_id,
  digest: r.digest,
  approvedBy: r.approver_user_id,
  comment: r.comment,
  createdAt: r.created_at,
});

export const toReceipt = (r: ReceiptsTable): Receipt => ({
  id: r.id,
  proposalId: r.proposal_id,
  digest: r.digest,
  appliedVersion: Number(r.applied_version),
  changeId: r.change_id,
  stateDigest: r.state_digest,
  approvals: JSON.parse(r.approvals),
  executedBy: JSON.parse(r.executed_by),
  executedAt: r.executed_at,
});

export async function insertProposal(db: Executor, row: ProposalsTable): Promise<void> {
  await own(db).insertInto('proposals').values(row).execute();
}

/** The proposal of one environment; on PostgreSQL `lock` holds its row until the transaction ends. */
export async function findProposal(
  db: Executor,
  envId: string,
  id: string,
  lock = false,
): Promise<ProposalsTable | undefined> {
  const query = own(db).selectFrom('proposals').selectAll().where('id', '=', id).where('env_id', '=', envId);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function listProposals(db: Executor, envId: string, limit: number): Promise<ProposalsTable[]> {
  return own(db)
    .selectFrom('proposals')
    .selectAll()
    .where('env_id', '=', envId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function approvalsOf(db: Executor, proposalIds: string[]): Promise<ApprovalsTable[]> {
  if (proposalIds.length === 0) return [];
  return own(db).selectFrom('approvals').selectAll().where('proposal_id', 'in', proposalIds).orderBy('id').execute();
}

export async function insertApproval(db: Executor, row: ApprovalsTable): Promise<void> {
  await own(db).insertInto('approvals').values(row).execute();
}

export async function receiptsOf(db: Executor, proposalIds: string[]): Promise<ReceiptsTable[]> {
  if (proposalIds.length === 0) return [];
  return own(db).selectFrom('receipts').selectAll().where('proposal_id', 'in', proposalIds).execute();
}

export async function findReceipt(db: Executor, envId: string, id: string): Promise<ReceiptsTable | undefined> {
  return own(db).selectFrom('receipts').selectAll().where('id', '=', id).where('env_id', '=', envId).executeTakeFirst();
}

export async function insertReceipt(db: Executor, row: ReceiptsTable): Promise<void> {
  await own(db).insertInto('receipts').values(row).execute();
}

export type ProposalRow = ProposalsTable;

export async function findProposalById(db: Executor, id: string): Promise<ProposalsTable | undefined> {
  return own(db).selectFrom('proposals').selectAll().where('id', '=', id).executeTakeFirst();
}

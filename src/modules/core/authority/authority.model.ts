// The authority workflow as the domain sees it: immutable proposals, approvals and receipts, and the
// status a proposal has at a given moment (derived, never stored, so it never goes out of date).
import type { JournalAuthority, DiffEntry } from '../journal/index.js';

export const CHANGE_KINDS = ['flag.patch', 'flag.delete', 'bulk.apply', 'rollback.apply'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface ProposedChange {
  kind: ChangeKind;
  body: Record<string, unknown>;
}

export interface Proposal {
  id: string;
  appId: string;
  env: string;
  baseVersion: number;
  change: ProposedChange;
  preview: { resultVersion: number; changes: DiffEntry[] };
  digest: string;
  proposedBy: JournalAuthority;
  requiredApprovals: number;
  reason: string | null;
  createdAt: string;
  expiresAt: string;
}

export interface Approval {
  id: string;
  proposalId: string;
  digest: string;
  approvedBy: string;
  comment: string | null;
  createdAt: string;
}

export interface Receipt {
  id: string;
  proposalId: string;
  digest: string;
  appliedVersion: number;
  changeId: string | null;
  stateDigest: string;
  approvals: Approval[];
  executedBy: JournalAuthority;
  executedAt: string;
}

export const PROPOSAL_STATUSES = ['open', 'approved', 'executed', 'expired', 'stale'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/**
 * executed (a receipt exists) wins; then expired (past expiresAt); then stale (the environment moved
 * past baseVersion); then approved (enough distinct approvals for the environment's current policy);
 * else open.
 */
export function statusOf(p: Proposal, facts: { receipt: boolean; approvals: number; currentVersion: number; requiredApprovals: number; now: number }): ProposalStatus {
  if (facts.receipt) return 'executed';
  if (Date.parse(p.expiresAt) <= facts.now) return 'expired';
  if (facts.currentVersion !== p.baseVersion) return 'stale';
  if (facts.approvals >= facts.requiredApprovals) return 'approved';
  return 'open';
}

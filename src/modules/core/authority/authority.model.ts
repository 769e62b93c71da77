// The authority workflow as the domain sees it: immutable proposals, approvals and receipts, and the
// status a proposal has at a given moment (derived, never stored, so it never goes out of date).
import type { JournalAuthority, DiffEntry } from '../journal/index.js';

/** The kinds core knows; modules above it register theirs (change-kinds.ts). */
export const CHANGE_KINDS = ['flag.patch', 'flag.delete', 'bulk.apply', 'rollback.apply'] as const;
export type BuiltinChangeKind = (typeof CHANGE_KINDS)[number];

export interface ProposedChange {
  kind: string;
  body: Record<string, unknown>;
}

/** The resource a registered kind acts on, before and after the change (read back at execution). */
export interface PreviewedResource {
  type: string;
  id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface ProposalPreview {
  resultVersion: number;
  changes: DiffEntry[];
  resource?: PreviewedResource;
}

export interface Proposal {
  id: string;
  appId: string;
  env: string;
  baseVersion: number;
  change: ProposedChange;
  preview: ProposalPreview;
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
 * past baseVersion, or the resource a registered kind acts on is no longer what was previewed);
 * then approved (enough distinct approvals for the environment's current policy); else open.
 */
export function statusOf(
  p: Proposal,
  facts: {
    receipt: boolean;
    approvals: number;
    currentVersion: number;
    requiredApprovals: number;
    now: number;
    resourceMoved?: boolean;
  },
): ProposalStatus {
  if (facts.receipt) return 'executed';
  if (Date.parse(p.expiresAt) <= facts.now) return 'expired';
  if (facts.currentVersion !== p.baseVersion || facts.resourceMoved) return 'stale';
  if (facts.approvals >= facts.requiredApprovals) return 'approved';
  return 'open';
}

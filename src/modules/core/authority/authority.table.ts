export interface ProposalsTable {
  id: string;
  app_id: string;
  env_id: string;
  /** Canonical environment slug. */
  env: string;
  base_version: number;
  /** JSON { kind, body }. */
  change: string;
  /** JSON { resultVersion, changes }. */
  preview: string;
  digest: string;
  /** JSON journal authority of the proposer. */
  proposed_by: string;
  /** The proposing user (null when a key proposed): self-approval is refused against it. */
  proposer_user_id: string | null;
  required_approvals: number;
  reason: string | null;
  created_at: string;
  expires_at: string;
}

export interface ApprovalsTable {
  id: string;
  proposal_id: string;
  approver_user_id: string;
  digest: string;
  comment: string | null;
  created_at: string;
}

export interface ReceiptsTable {
  id: string;
  proposal_id: string;
  app_id: string;
  env_id: string;
  digest: string;
  applied_version: number;
  change_id: string | null;
  state_digest: string;
  /** JSON array of the approvals the execution counted. */
  approvals: string;
  /** JSON journal authority of the executor. */
  executed_by: string;
  executed_at: string;
}

export interface AuthorityTables {
  proposals: ProposalsTable;
  approvals: ApprovalsTable;
  receipts: ReceiptsTable;
}

export interface ChangesTable {
  id: string;
  app_id: string;
  env: string | null;
  operation: string;
  source: string;
  resource_type: string;
  resource_id: string | null;
  authority_type: string;
  user_id: string | null;
  key_fingerprint: string | null;
  before_version: number | null;
  after_version: number | null;
  /** JSON array of redacted diff entries. */
  diff: string;
  /** JSON object: what else the entry names (rollback target, proposal and approvers); null if nothing. */
  context: string | null;
  created_at: string;
}

export interface JournalTables {
  changes: ChangesTable;
}

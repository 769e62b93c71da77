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
  created_at: string;
}

export interface JournalTables {
  changes: ChangesTable;
}

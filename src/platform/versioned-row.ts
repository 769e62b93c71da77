// The row shape of the definitions guarded by a `version` (layers, holdouts), with no domain
// knowledge: each of the two tables is queried by its own module's repository (decision 0052). Table
// types import it, and must not import anything that reaches the database type they are part of.

export interface VersionedRow {
  id: string;
  app_id: string;
  env_id: string;
  key: string;
  version: number;
  salt: string;
  /** JSON of the record's own fields. */
  definition: string;
  created_at: string;
  updated_at: string;
  /** JSON of the journal authority that created it. */
  created_by: string;
}

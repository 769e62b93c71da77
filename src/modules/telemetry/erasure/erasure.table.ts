export interface SubjectErasuresTable {
  id: string;
  app_id: string;
  env_id: string;
  status: string;
  /** The subject sealed with the server secret box, only until the erasure job completes. */
  subject_sealed: string | null;
  cutoff: string;
  requested_at: string;
  completed_at: string | null;
}

export interface ErasureTables {
  subject_erasures: SubjectErasuresTable;
}

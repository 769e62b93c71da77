export interface ExperimentsTable {
  id: string;
  app_id: string;
  env_id: string;
  key: string;
  /** The compare-and-swap field: raised by every change. */
  revision: number;
  state: string;
  /** JSON of the ExperimentDefinition. */
  definition: string;
  created_at: string;
  updated_at: string;
  /** JSON of the journal authority that created it. */
  created_by: string;
}

/** Every revision of an experiment as it was written; never updated. */
export interface ExperimentRevisionsTable {
  experiment_id: string;
  revision: number;
  state: string;
  definition: string;
  created_at: string;
  /** JSON of the journal authority of the change. */
  created_by: string;
}

/** One row per (iteration, revision): a ramp appends a revision, an iterate a new iteration. */
export interface ExperimentIterationsTable {
  id: string;
  revision: number;
  experiment_id: string;
  number: number;
  salt: string;
  allocation: number;
  /** running | paused | completed: the lifecycle of the iteration (kept on its newest revision). */
  state: string;
  started_at: string;
  created_at: string;
}

export interface ExperimentsTables {
  experiments: ExperimentsTable;
  experiment_revisions: ExperimentRevisionsTable;
  experiment_iterations: ExperimentIterationsTable;
}

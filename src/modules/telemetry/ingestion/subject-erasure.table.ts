/** A subject erased from an environment: its later-arriving old events are dropped at ingestion. */
export interface TelemetryTombstonesTable {
  env_id: string;
  /** Keyed hash (server secret) of the environment and subject; never the subject. */
  subject_hash: string;
  /** Events with a timestamp at or before this (Unix ms) are dropped. */
  cutoff: number;
  /** Unix ms from which the tombstone no longer applies: cutoff + 30 days + 1 ms, when no event
   * stamped at or before the cutoff is accepted any more (subject-erasure.repository.ts). */
  expires_at: number;
}

export interface SubjectErasureTables {
  telemetry_tombstones: TelemetryTombstonesTable;
}

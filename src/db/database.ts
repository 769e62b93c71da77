// The whole database type: every module's tables put together. Only db/ and repositories see it.
import type { AuthTables } from '../modules/core/auth/auth.table.js';
import type { AppsTables } from '../modules/core/apps/apps.table.js';
import type { KeysTables } from '../modules/core/keys/keys.table.js';
import type { JournalTables } from '../modules/core/journal/journal.table.js';
import type { IdempotencyTables } from '../platform/idempotency.table.js';
import type { VersionsTables } from '../modules/core/config/versions.table.js';
import type { MeteringTables } from '../modules/delivery/metering/metering.table.js';
import type { JobsTables } from '../jobs/jobs.table.js';
import type { MetricsTables } from '../modules/experimentation/experiment-metrics/metrics.table.js';
import type { ExportsTables } from '../modules/telemetry/exports/exports.table.js';
import type { ErasureTables } from '../modules/telemetry/erasure/erasure.table.js';
import type { SubjectErasureTables } from '../modules/telemetry/ingestion/subject-erasure.table.js';
import type { LayersTables } from '../modules/experimentation/layers/layers.table.js';
import type { HoldoutsTables } from '../modules/experimentation/holdouts/holdouts.table.js';
import type { ExperimentsTables } from '../modules/experimentation/experiments/experiments.table.js';
import type { TelemetryTables } from '../modules/telemetry/ingestion/telemetry.table.js';
import type { BaselinesTables } from '../modules/experimentation/experiments/baselines.table.js';
import type { AggregationRunsTables } from '../modules/experimentation/experiments/aggregation-runs.table.js';
import type { RolloutsTables } from '../modules/experimentation/rollouts/rollouts.table.js';
import type { ExportBackfillsTables } from '../modules/telemetry/exports/backfills.table.js';
import type { AuthorityTables } from '../modules/core/authority/authority.table.js';
import type { CommitSequenceTable } from './commit-sequence.table.js';
import type { SecretFingerprintTables } from '../platform/secret-fingerprint.table.js';

export interface Database
  extends
    AuthTables,
    AppsTables,
    KeysTables,
    JournalTables,
    IdempotencyTables,
    VersionsTables,
    MeteringTables,
    JobsTables,
    MetricsTables,
    LayersTables,
    HoldoutsTables,
    ExperimentsTables,
    TelemetryTables,
    AuthorityTables,
    ExportsTables,
    ErasureTables,
    SubjectErasureTables,
    BaselinesTables,
    AggregationRunsTables,
    RolloutsTables,
    ExportBackfillsTables,
    SecretFingerprintTables {
  /** SQLite only (db/commit-sequence.ts). */
  commit_sequence: CommitSequenceTable;
}

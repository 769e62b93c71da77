// The whole database type: every module's tables put together. Only db/ and repositories see it.
import type { AuthTables } from '../modules/auth/auth.table.js';
import type { AppsTables } from '../modules/apps/apps.table.js';
import type { KeysTables } from '../modules/keys/keys.table.js';
import type { JournalTables } from '../modules/journal/journal.table.js';
import type { IdempotencyTables } from '../platform/idempotency.table.js';
import type { VersionsTables } from '../modules/versions/versions.table.js';
import type { MeteringTables } from '../modules/metering/metering.table.js';
import type { JobsTables } from '../jobs/jobs.table.js';
import type { MetricsTables } from '../modules/metrics/metrics.table.js';
import type { ExportsTables } from '../modules/exports/exports.table.js';
import type { ErasureTables } from '../modules/erasure/erasure.table.js';
import type { SubjectErasureTables } from '../modules/telemetry/subject-erasure.table.js';
import type { LayersTables } from '../modules/layers/layers.table.js';
import type { HoldoutsTables } from '../modules/holdouts/holdouts.table.js';
import type { ExperimentsTables } from '../modules/experiments/experiments.table.js';
import type { TelemetryTables } from '../modules/telemetry/telemetry.table.js';
import type { BaselinesTables } from '../modules/experiments/baselines.table.js';
import type { AggregationRunsTables } from '../modules/experiments/aggregation-runs.table.js';
import type { RolloutsTables } from '../modules/rollouts/rollouts.table.js';
import type { ExportBackfillsTables } from '../modules/exports/backfills.table.js';
import type { AuthorityTables } from '../modules/authority/authority.table.js';

export interface Database extends AuthTables, AppsTables, KeysTables, JournalTables, IdempotencyTables, VersionsTables, MeteringTables, JobsTables,
  MetricsTables, LayersTables, HoldoutsTables, ExperimentsTables, TelemetryTables, AuthorityTables, ExportsTables, ErasureTables, SubjectErasureTables,
  BaselinesTables, AggregationRunsTables, RolloutsTables, ExportBackfillsTables {}

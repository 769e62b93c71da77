export { createTelemetryService, storageUnavailable, type FlagVisibility, type TelemetryService, type TelemetryServiceDeps } from './telemetry.service.js';
export { telemetryRoutes, BATCH_BODY_LIMIT } from './telemetry.routes.js';
export { purgeExpiredTelemetry, type PurgeResult } from './retention.js';
export { telemetryReadModel, telemetrySubjectErasure, type TelemetryReadModel, type TelemetrySubjectErasure } from './telemetry.read-model.js';
export type { EventScan, RollupScan } from './telemetry.repository.js';
export { estimateUnion, SubjectSketch, SKETCH_PRECISION, SKETCH_RELATIVE_STANDARD_ERROR } from './subject-sketch.js';
export {
  DAY_MS, DIMENSIONS, EVENT_KINDS, FUTURE_TOLERANCE_MS, HOUR_MS, RAW_RETENTION_MS, ROLLUP_RETENTION_MS,
  type Dimension, type DimensionFilters, type EventKind, type RedactedEvent, type RollupRow, type Watermark,
} from './telemetry.model.js';
export { flagEvaluationsOf, type FlagEvaluationCount } from './flag-evaluations.js';
export { registerTelemetryRetention, PURGE_EXPIRED_TELEMETRY } from './retention-job.js';
export type { CanonicalEvent, CommitPosition, FeedPosition } from './event-feed.js';
export type { OutcomeMoments } from './outcome-moments.js';
export type { EventWindow, ExperimentEvent } from './experiment-events.js';
export { inlineGroupStore, threadGroupStore, type GroupStore } from './group-store.js';

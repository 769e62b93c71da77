export { createTelemetryService, storageUnavailable, type FlagVisibility, type TelemetryService, type TelemetryServiceDeps } from './telemetry.service.js';
export { telemetryRoutes, BATCH_BODY_LIMIT } from './telemetry.routes.js';
export { purgeExpiredTelemetry, type PurgeResult } from './retention.js';
export { countRollups, eventTimeOf, listEvents, redeemLegacyCursor, scanRollups, watermarkOf, type EventScan, type RollupScan } from './telemetry.repository.js';
export { estimateUnion, SubjectSketch, SKETCH_PRECISION, SKETCH_RELATIVE_STANDARD_ERROR } from './subject-sketch.js';
export {
  DAY_MS, DIMENSIONS, EVENT_KINDS, FUTURE_TOLERANCE_MS, HOUR_MS, RAW_RETENTION_MS, ROLLUP_RETENTION_MS,
  type Dimension, type DimensionFilters, type EventKind, type RedactedEvent, type RollupRow, type Watermark,
} from './telemetry.model.js';
export { flagEvaluationsOf, type FlagEvaluationCount } from './flag-evaluations.js';
export { registerTelemetryRetention, PURGE_EXPIRED_TELEMETRY } from './retention-job.js';
export { eventsAfter, eventsByIds, eventsCommittedAfter, feedStart, type CanonicalEvent, type CommitPosition, type FeedPosition } from './event-feed.js';
export { dropErasedSubjects, eraseSubjectEvents, purgeExpiredTombstones, subjectHashOf, writeTombstone } from './subject-erasure.repository.js';
export { outcomeMoments, type OutcomeMoments } from './outcome-moments.js';
export { iterationAssignments, iterationsOfSubject, outcomeEvents, type EventWindow, type ExperimentEvent } from './experiment-events.js';
export { inlineGroupStore, threadGroupStore, type GroupStore } from './group-store.js';

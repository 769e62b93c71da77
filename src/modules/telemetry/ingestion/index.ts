export { createTelemetryService, type TelemetryServiceDeps } from './telemetry.service.js';
export { telemetryRoutes } from './telemetry.routes.js';
export { purgeExpiredTelemetry } from './retention.js';
export { telemetryReadModel, telemetrySubjectErasure } from './telemetry.read-model.js';
export { estimateUnion, SubjectSketch, SKETCH_PRECISION, SKETCH_RELATIVE_STANDARD_ERROR } from './subject-sketch.js';
export {
  DAY_MS,
  DIMENSIONS,
  EVENT_KINDS,
  FUTURE_TOLERANCE_MS,
  HOUR_MS,
  RAW_RETENTION_MS,
  ROLLUP_RETENTION_MS,
  type Dimension,
  type DimensionFilters,
  type EventKind,
  type RedactedEvent,
  type Watermark,
} from './telemetry.model.js';
export { flagEvaluationsOf } from './flag-evaluations.js';
export { registerTelemetryRetention } from './retention-job.js';
export type { CanonicalEvent, FeedPosition } from './event-feed.js';
export type { ExperimentEvent } from './experiment-events.js';
export { inlineGroupStore, threadGroupStore } from './group-store.js';

export { createMetricsService, type MetricsService, type CreateMetricInput, type ReviseMetricInput } from './metrics.service.js';
export { metricsRoutes, type MetricsRouteDeps } from './metrics.routes.js';
export { METRIC_KINDS, METRIC_DIRECTIONS, type MetricFields, type MetricRevision, type MetricKind, type MetricDirection } from './metrics.model.js';

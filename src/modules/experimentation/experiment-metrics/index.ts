export { createMetricsService, type MetricsService } from './metrics.service.js';
export { metricsRoutes } from './metrics.routes.js';
export { type MetricKind } from './metrics.model.js';

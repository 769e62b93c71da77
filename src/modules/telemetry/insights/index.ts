export { createInsightsService, type InsightsService, type InsightsServiceDeps } from './insights.service.js';
export { insightsRoutes } from './insights.routes.js';

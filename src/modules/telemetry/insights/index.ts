export { createInsightsService } from './insights.service.js';
export { insightsRoutes } from './insights.routes.js';

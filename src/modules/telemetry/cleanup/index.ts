export { createCleanupService, type CleanupService, type FlagEvaluationSource, type RolloutPlanSource } from './cleanup.service.js';
export { cleanupRoutes } from './cleanup.routes.js';
export type { EvaluationUsage } from './cleanup.model.js';

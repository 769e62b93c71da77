export { createRollbacksService, type RollbacksService, type RollbackRequest } from './rollbacks.service.js';
export { rollbacksRoutes } from './rollbacks.routes.js';
export { planRollback, normaliseScope, type RollbackPlan, type RollbackScope, type RollbackScopeInput } from './rollback-plan.js';
export { RollbackPlanSchema, RollbackScopeSchema, rollbackRequestFields } from './rollbacks.schemas.js';

export { createRollbacksService, type RollbacksService } from './rollbacks.service.js';
export { rollbacksRoutes } from './rollbacks.routes.js';
export { type RollbackScopeInput } from './rollback-plan.js';
export { rollbackRequestFields } from './rollbacks.schemas.js';

export { createHoldoutsService, type HoldoutsService } from './holdouts.service.js';
export { holdoutsRoutes } from './holdouts.routes.js';
export { holdoutChangeKinds } from './holdout-change-kinds.js';

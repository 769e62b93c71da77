export { createHoldoutsService, type HoldoutsService, type HoldoutsDeps } from './holdouts.service.js';
export { holdoutsRoutes, type HoldoutsRouteDeps } from './holdouts.routes.js';
export { MIN_HOLDOUT_PERCENTAGE, MAX_HOLDOUT_PERCENTAGE, type Holdout } from './holdouts.model.js';
export { holdoutChangeKinds } from './holdout-change-kinds.js';

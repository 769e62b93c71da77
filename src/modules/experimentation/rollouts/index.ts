export { createRolloutsService, type RolloutsService, type RolloutsDeps } from './rollouts.service.js';
export { rolloutsRoutes } from './rollouts.routes.js';
export { PLAN_STATES, type RolloutPlan, type PlanState, type Recommendation } from './rollouts.model.js';
export { rolloutChangeKinds } from './rollout-change-kinds.js';

export { createRolloutsService } from './rollouts.service.js';
export { rolloutsRoutes } from './rollouts.routes.js';
export { rolloutChangeKinds } from './rollout-change-kinds.js';

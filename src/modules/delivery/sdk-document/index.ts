export { createAdvancedService } from './advanced.service.js';
export { advancedRoutes } from './advanced.routes.js';

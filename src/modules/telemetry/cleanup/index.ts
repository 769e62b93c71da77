export { createCleanupService } from './cleanup.service.js';
export { cleanupRoutes } from './cleanup.routes.js';

export { createAppsService, type AppsService } from './apps.service.js';
export { appsRoutes } from './apps.routes.js';
export { canonicalEnvSlug, DEFAULT_ENVIRONMENTS, type App, type Environment } from './apps.model.js';

export { createAppsService, type AppsService } from './apps.service.js';
export { appsRoutes } from './apps.routes.js';
export { createMembersService, type MembersService } from './members.service.js';
export { membersRoutes } from './members.routes.js';
export { canonicalEnvSlug, DEFAULT_ENVIRONMENTS, MAX_REQUIRED_APPROVALS, type App, type Environment, type Member } from './apps.model.js';

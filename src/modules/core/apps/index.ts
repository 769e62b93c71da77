export { createAppsService } from './apps.service.js';
export { appsRoutes } from './apps.routes.js';
export { createMembersService } from './members.service.js';
export { membersRoutes } from './members.routes.js';
export { createInvitationsService } from './invitations.service.js';
export { invitationsRoutes } from './invitations.routes.js';
export { canonicalEnvSlug } from './apps.model.js';
export { environmentSlugOf, environmentSlugsOf } from './apps.read-model.js';

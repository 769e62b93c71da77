export { createAppsService, type AppsService } from './apps.service.js';
export { appsRoutes } from './apps.routes.js';
export { createMembersService, type MembersService } from './members.service.js';
export { membersRoutes } from './members.routes.js';
export { createInvitationsService, type InvitationsService } from './invitations.service.js';
export { invitationsRoutes } from './invitations.routes.js';
export { canonicalEnvSlug, DEFAULT_ENVIRONMENTS, INVITATION_TTL_MS, MAX_REQUIRED_APPROVALS, type App, type AppInvitation, type Environment, type Invitation, type Member, type ReceivedInvitation } from './apps.model.js';

export { createAuthorityService } from './authority.service.js';
export { authorityRoutes } from './authority.routes.js';
export { proposalBody, type ChangeKindCall, type ChangeKindHandler, type ResourceView } from './change-kinds.js';

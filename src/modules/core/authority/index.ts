export { createAuthorityService, type AuthorityService } from './authority.service.js';
export { authorityRoutes } from './authority.routes.js';

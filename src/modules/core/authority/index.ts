export { createAuthorityService, type AuthorityService } from './authority.service.js';
export { authorityRoutes } from './authority.routes.js';
export { proposalBody, type ChangeKindCall, type ChangeKindHandler, type ProposalClearance, type ResourceView } from './change-kinds.js';

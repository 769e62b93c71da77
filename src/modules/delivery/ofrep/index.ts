export { OFREP_PREFIX, ofrepRoutes } from './ofrep.routes.js';
export { ofrepFrameworkErrors } from './ofrep-errors.js';
export { createStreamLinks } from './stream-links.js';
export { createStreamTokens } from './stream-token.js';

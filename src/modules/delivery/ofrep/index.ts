export { OFREP_PREFIX, ofrepRoutes, type OfrepRouteDeps } from './ofrep.routes.js';
export { ofrepErrors, ofrepFrameworkErrors } from './ofrep-errors.js';
export { createStreamLinks, type StreamLinks } from './stream-links.js';
export { createStreamTokens } from './stream-token.js';

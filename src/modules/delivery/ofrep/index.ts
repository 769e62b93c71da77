export { OFREP_PREFIX, ofrepRoutes, type OfrepRouteDeps } from './ofrep.routes.js';
export { ofrepErrors, ofrepFrameworkErrors } from './ofrep-errors.js';

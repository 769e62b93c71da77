export { OFREP_PREFIX, ofrepRoutes, type OfrepRouteDeps } from './ofrep.routes.js';
export { ofrepErrors } from './ofrep-errors.js';

export { OFREP_PREFIX, ofrepRoutes, type OfrepRouteDeps } from './ofrep.routes.js';
export { sendOfrepError } from './ofrep-errors.js';

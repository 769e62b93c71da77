export { OFREP_PREFIX, ofrepRoutes } from './ofrep.routes.js';
export { ofrepFrameworkErrors } from './ofrep-errors.js';

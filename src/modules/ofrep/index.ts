export { ofrepRoutes, type OfrepRouteDeps } from './ofrep.routes.js';

export { ofrepRoutes, type OfrepRouteDeps } from './ofrep.routes.js';
export { journalRevocationCheck } from './key-revocation.js';
